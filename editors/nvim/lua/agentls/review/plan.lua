-- Plan review: a plan the plan agent presents (`plan.review.asked`) opens in a Markdown buffer;
-- `:[range]AgentlsPlanComment [text]` notes a comment on its lines (shown under them, as review
-- comments are), `:AgentlsPlanRevise [message]` sends the comments and the message back to the plan
-- agent, `:AgentlsPlanApprove` hands the plan to the build agent, `:AgentlsPlanReject [message]`
-- stops the turn. With `plan_view = 'select'` no buffer opens: vim.ui.select asks instead. Either
-- opens only while the user is not typing (agentls.dialogs.gate), as the dialogs do.
local client = require('agentls.server.client')
local config = require('agentls.config')
local gate = require('agentls.dialogs.gate')

local M = {}

M.ns = vim.api.nvim_create_namespace('agentls_plan')
---@type table<string, {request: agentls.PlanReviewRequest, buf: integer|nil, marks: {id: integer, text: string}[], cancel_wait: function|nil}>
M.pending = {}

local function notify(message, level)
  vim.notify('agentls: ' .. message, level or vim.log.levels.INFO)
end

local function buf_name(request)
  return 'agentls://plan/' .. request.path
end

---@param request agentls.PlanReviewRequest
local function open_buffer(entry, request)
  local buf = vim.fn.bufnr(buf_name(request)) -- a revision reuses the buffer of the plan before
  if buf == -1 then
    buf = vim.api.nvim_create_buf(true, true)
    vim.api.nvim_buf_set_name(buf, buf_name(request))
  end
  vim.bo[buf].modifiable = true
  local text = request.text:gsub('\n$', '')
  vim.api.nvim_buf_set_lines(buf, 0, -1, false, vim.split(text, '\n', { plain = true }))
  vim.bo[buf].modifiable = false
  vim.bo[buf].buftype = 'nofile'
  vim.bo[buf].bufhidden = 'hide'
  vim.bo[buf].filetype = 'markdown'
  vim.api.nvim_buf_clear_namespace(buf, M.ns, 0, -1)
  vim.b[buf].agentls_plan = request.id
  entry.buf = buf
  if vim.fn.bufwinid(buf) == -1 then
    vim.cmd('botright split')
    vim.api.nvim_win_set_buf(0, buf)
  end
  notify(
    ('the plan %s waits for your review: :AgentlsPlanApprove, :AgentlsPlanComment on its lines then '):format(
      request.path
    ) .. ':AgentlsPlanRevise, or :AgentlsPlanReject'
  )
end

-- Answer a plan; a refused answer (a revision that says nothing) keeps the comments.
local function reply(entry, answer, message, comments)
  local params = { requestID = entry.request.id, reply = answer, message = message, comments = comments or {} }
  client.request('agent/plan/reply', params, function(err)
    if err then
      notify((err.message or vim.inspect(err)) .. ' (the plan still waits)', vim.log.levels.ERROR)
    end
  end)
end

-- The plan the user means: the one in the current buffer, else the newest waiting.
local function current()
  local id = vim.b.agentls_plan
  if id and M.pending[id] then
    return M.pending[id]
  end
  local newest
  for _, entry in pairs(M.pending) do
    if not newest or entry.request.id > newest.request.id then
      newest = entry
    end
  end
  if not newest then
    notify('no plan waits for review', vim.log.levels.INFO)
  end
  return newest
end

--- The comments noted on a plan, as `agent/plan/reply` comments (0-based lines where they stand now).
function M.comments(entry)
  local out = {}
  for _, mark in ipairs(entry.marks) do
    local pos = entry.buf
      and vim.api.nvim_buf_is_valid(entry.buf)
      and vim.api.nvim_buf_get_extmark_by_id(entry.buf, M.ns, mark.id, {})
    if pos and pos[1] then
      table.insert(out, { line = pos[1], text = mark.text })
    end
  end
  return out
end

local function select_answer(entry)
  local request = entry.request
  local prompt = ('agentls: the plan %s\n\n%s\n'):format(request.path, request.text)
  vim.cmd('redraw') -- inputlist() does not redraw: the chat behind it would be stale
  vim.ui.select({ 'Approve', 'Revise…', 'Reject…' }, { prompt = prompt, kind = 'agentls.plan' }, function(choice)
    if choice == 'Approve' then
      return reply(entry, 'approve')
    elseif choice == nil then
      return notify('the plan still waits (:AgentlsPlanApprove, :AgentlsPlanRevise, :AgentlsPlanReject)')
    end
    local answer = choice == 'Revise…' and 'revise' or 'reject'
    vim.ui.input({ prompt = answer == 'revise' and 'What to change: ' or 'Why (optional): ' }, function(text)
      if text == nil or (answer == 'revise' and vim.trim(text) == '') then
        return notify('the plan still waits')
      end
      reply(entry, answer, vim.trim(text) ~= '' and text or nil)
    end)
  end)
end

---@param request agentls.PlanReviewRequest
function M.show(request)
  local entry = M.pending[request.id] or { request = request, marks = {} }
  M.pending[request.id] = entry
  local function present()
    entry.cancel_wait = nil
    if M.pending[request.id] ~= entry then
      return -- answered elsewhere meanwhile
    elseif config.options.plan_view == 'select' then
      return select_answer(entry)
    end
    open_buffer(entry, request)
  end
  if entry.cancel_wait then
    entry.cancel_wait()
  end
  if gate.quiet() then
    return present()
  end
  notify(('the plan %s waits for your review; it opens when you pause typing'):format(request.path))
  entry.cancel_wait = gate.when_quiet(present)
end

--- A plan was answered (here or elsewhere) or its turn aborted.
function M.close(request_id, how)
  local entry = M.pending[request_id]
  if not entry then
    return
  end
  M.pending[request_id] = nil
  if entry.cancel_wait then
    entry.cancel_wait()
  end
  if entry.buf and vim.api.nvim_buf_is_valid(entry.buf) then
    vim.api.nvim_buf_clear_namespace(entry.buf, M.ns, 0, -1)
    vim.b[entry.buf].agentls_plan = nil
  end
  notify(('the plan %s: %s'):format(entry.request.path, how))
end

--- :[range]AgentlsPlanComment [text]
function M.comment(o)
  local entry = current()
  if not entry then
    return
  end
  if vim.api.nvim_get_current_buf() ~= entry.buf then
    return notify('comment on the lines of the plan buffer (' .. buf_name(entry.request) .. ')', vim.log.levels.WARN)
  end
  local first, last = o.line1, o.line2
  local function add(text)
    local label = first == last and text or ('(lines %d-%d) %s'):format(first, last, text)
    local id = vim.api.nvim_buf_set_extmark(entry.buf, M.ns, first - 1, 0, {
      virt_lines = { { { '  ✎ ' .. text, 'AgentlsComment' } } },
      sign_text = '✎',
      sign_hl_group = 'AgentlsComment',
    })
    table.insert(entry.marks, { id = id, text = label })
    notify(
      ('%d comment%s on the plan (:AgentlsPlanRevise sends them)'):format(#entry.marks, #entry.marks == 1 and '' or 's')
    )
  end
  local arg = vim.trim(o.args or '')
  if arg ~= '' then
    return add(arg)
  end
  vim.ui.input({ prompt = ('Comment on line %d: '):format(first) }, function(text)
    if text and vim.trim(text) ~= '' then
      add(text)
    end
  end)
end

--- :AgentlsPlanRevise [message]: the comments and the message go back to the plan agent.
function M.revise(message)
  local entry = current()
  if not entry then
    return
  end
  message = vim.trim(message or '')
  local comments = M.comments(entry)
  if #comments == 0 and message == '' then
    return notify(
      'say what to change: :AgentlsPlanComment on its lines, or :AgentlsPlanRevise {message}',
      vim.log.levels.WARN
    )
  end
  reply(entry, 'revise', message ~= '' and message or nil, comments)
end

--- Approve the plan under review: the build agent carries it out (:AgentlsPlanApprove).
function M.approve()
  local entry = current()
  if entry then
    reply(entry, 'approve')
  end
end

--- Reject the plan under review, with an optional message (:AgentlsPlanReject).
function M.reject(message)
  local entry = current()
  if entry then
    message = vim.trim(message or '')
    reply(entry, 'reject', message ~= '' and message or nil)
  end
end

local CLOSED = {
  ['plan.review.cancelled'] = function()
    return 'the turn was aborted'
  end,
  ['plan.review.replied'] = function(p)
    return ({
      approve = 'approved, the build agent carries it out',
      revise = 'sent back for revision',
      reject = 'rejected',
    })[p.reply] or p.reply
  end,
}

--- Follow plan review events.
---@param event agentls.AgentEvent
function M.on_event(event)
  local p = event.properties or {}
  if event.type == 'plan.review.asked' then
    vim.schedule(function()
      M.show(p.request)
    end)
  elseif CLOSED[event.type] then
    vim.schedule(function()
      M.close(p.requestID, CLOSED[event.type](p))
    end)
  end
end

--- Ask the server for the plans waiting for review (after a (re)connect).
function M.resume()
  client.request('agent/plan/list', {}, function(err, result)
    for _, request in ipairs(not err and result and result.requests or {}) do
      if not M.pending[request.id] then
        vim.schedule(function()
          M.show(request)
        end)
      end
    end
  end)
end

return M
