-- Review comments, like a pull request's: `:[range]AgentlsComment [text]` notes a comment on lines
-- of a file (shown under them as virtual lines; about the agent's change there when the range is on
-- one), `:AgentlsComment submit` sends the batch to the agent as one prompt (`agent/review/comment`,
-- queued behind a running turn), `:AgentlsComment clear` drops it.
local client = require('agentls.server.client')
local signs = require('agentls.review.signs')

local M = {}

M.ns = vim.api.nvim_create_namespace('agentls_comments')
M.batch = {} ---@type {buf: integer, mark: integer, path: string, body: string, hunk: table|nil}[]

-- The pending hunk of `buf` that lines first..last (1-based) fall in, if any.
local function hunk_at(buf, first, last)
  for _, item in ipairs(signs.in_buffer(buf)) do
    if first - 1 >= item.first and last - 1 <= item.last then
      return item.hunk
    end
  end
end

--- Note a comment on lines `first`..`last` of `buf`.
function M.add(buf, first, last, body, quiet)
  local path = vim.api.nvim_buf_get_name(buf)
  if path == '' or vim.bo[buf].buftype ~= '' then
    return vim.notify('agentls: comment on the lines of a file', vim.log.levels.WARN)
  end
  local hunk = hunk_at(buf, first, last)
  local lines = {}
  for _, line in ipairs(vim.split(body, '\n', { plain = true })) do
    table.insert(lines, { { '  ✎ ' .. line, 'AgentlsComment' } })
  end
  -- The extmark follows edits: the lines are read when the batch is sent.
  local mark = vim.api.nvim_buf_set_extmark(buf, M.ns, first - 1, 0, {
    end_row = last - 1,
    end_col = 0,
    virt_lines = lines,
    sign_text = '✎',
    sign_hl_group = 'AgentlsComment',
  })
  table.insert(M.batch, { buf = buf, mark = mark, path = vim.fs.normalize(path), body = body, hunk = hunk })
  if quiet then
    return
  end
  vim.notify(
    ('agentls: %d comment%s to send (:AgentlsComment submit)'):format(#M.batch, #M.batch == 1 and '' or 's'),
    vim.log.levels.INFO
  )
end

--- Drop the batch and its marks.
function M.clear()
  for _, c in ipairs(M.batch) do
    if vim.api.nvim_buf_is_valid(c.buf) then
      pcall(vim.api.nvim_buf_del_extmark, c.buf, M.ns, c.mark)
    end
  end
  M.batch = {}
end

--- The batch as `agent/review/comment` comments (lines where the marks stand now).
function M.comments()
  local out = {}
  for _, c in ipairs(M.batch) do
    local pos = vim.api.nvim_buf_is_valid(c.buf)
        and vim.api.nvim_buf_get_extmark_by_id(c.buf, M.ns, c.mark, { details = true })
      or {}
    if pos[1] then
      local comment = {
        path = c.path,
        startLine = pos[1] + 1,
        endLine = math.max(pos[1], pos[3].end_row or pos[1]) + 1,
        body = c.body,
      }
      if c.hunk then
        comment.hunkID = c.hunk.id
      end
      table.insert(out, comment)
    end
  end
  return out
end

--- Send the batch to the chat's session (or to the session of the changes commented on).
function M.submit()
  local comments = M.comments()
  if #comments == 0 then
    return vim.notify('agentls: no comment to send (:AgentlsComment on a line or a selection)', vim.log.levels.INFO)
  end
  local session_id = require('agentls.chat').session_id
  for _, c in ipairs(M.batch) do
    session_id = session_id or (c.hunk and c.hunk.sessionID)
  end
  if not session_id then
    return vim.notify('agentls: open a session first (:Agentls)', vim.log.levels.WARN)
  end
  local sent = M.batch
  M.clear()
  client.request('agent/review/comment', { sessionID = session_id, comments = comments, send = true }, function(err)
    if err and err.code ~= -32800 and err.code ~= -32016 then
      -- Refused whole (the server checks the batch before sending any): the comments come back.
      for i, c in ipairs(sent) do
        if vim.api.nvim_buf_is_valid(c.buf) then
          M.add(c.buf, comments[i].startLine, comments[i].endLine, c.body, true)
        end
      end
      vim.notify('agentls: ' .. (err.message or vim.inspect(err)) .. ' (the comments are kept)', vim.log.levels.ERROR)
    end
  end)
  vim.notify(('agentls: %d comment%s sent'):format(#comments, #comments == 1 and '' or 's'), vim.log.levels.INFO)
end

--- :[range]AgentlsComment [text | submit | clear]
function M.command(o)
  local arg = vim.trim(o.args or '')
  if arg == 'submit' then
    return M.submit()
  elseif arg == 'clear' then
    M.clear()
    return vim.notify('agentls: comments dropped', vim.log.levels.INFO)
  end
  local buf = vim.api.nvim_get_current_buf()
  local first, last = o.line1, o.line2
  if o.range == 0 then
    first = vim.api.nvim_win_get_cursor(0)[1]
    last = first
    local hunk = signs.at_cursor() -- on the agent's change: the comment covers it
    if hunk then
      local top, bottom = signs.rows(buf, hunk.id)
      first, last = top + 1, bottom + 1
    end
  end
  if arg ~= '' then
    return M.add(buf, first, last, arg)
  end
  vim.ui.input({ prompt = ('Comment on lines %d-%d: '):format(first, last) }, function(body)
    if body and vim.trim(body) ~= '' then
      M.add(buf, first, last, body)
    end
  end)
end

return M
