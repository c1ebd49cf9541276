-- An undo the server could not merge (the user changed the agent's lines since): both sides side by
-- side in a diff tab — the agent's lines and what stands in their place now — and the user picks.
-- Nothing is overwritten unless the user picks it, and then as one undoable change in the buffer.
local signs = require('agentls.review.signs')

local M = {}

local function strip(lines)
  local out = {}
  for i, line in ipairs(lines or {}) do
    out[i] = (line:gsub('\r?\n$', ''))
  end
  return out
end

local function scratch(name, lines, filetype)
  local buf = vim.api.nvim_create_buf(false, true)
  vim.bo[buf].bufhidden = 'wipe'
  vim.api.nvim_buf_set_lines(buf, 0, -1, false, lines)
  vim.bo[buf].modifiable = false
  vim.bo[buf].filetype = filetype
  pcall(vim.api.nvim_buf_set_name, buf, name)
  return buf
end

-- A tab with the agent's lines (left) and the user's (right) in diff mode; returns a closer.
local function show_sides(conflict, path)
  local ft = vim.filetype.match({ filename = path }) or ''
  local stamp = vim.uv.hrtime()
  local previous = vim.api.nvim_get_current_tabpage()
  local agent = scratch(('agentls://agent/%d/%s'):format(stamp, conflict.file), strip(conflict.agent), ft)
  local yours = scratch(('agentls://yours/%d/%s'):format(stamp, conflict.file), strip(conflict.current), ft)
  vim.cmd('tabnew')
  local tab = vim.api.nvim_get_current_tabpage()
  local empty = vim.api.nvim_get_current_buf()
  vim.api.nvim_win_set_buf(0, agent)
  vim.cmd('diffthis')
  vim.wo.winbar = "%#AgentlsPaneTitle# the agent's lines: " .. conflict.file:gsub('%%', '%%%%') .. ' %*'
  vim.cmd('rightbelow vsplit')
  vim.api.nvim_win_set_buf(0, yours)
  vim.cmd('diffthis')
  vim.wo.winbar = '%#AgentlsPaneTitle# yours now (' .. conflict.reason:gsub('%%', '%%%%') .. ') %*'
  if vim.api.nvim_buf_is_valid(empty) and empty ~= agent and empty ~= yours then
    pcall(vim.api.nvim_buf_delete, empty, { force = true })
  end
  vim.cmd('redraw') -- Neovim's own vim.ui.select asks without drawing first
  return function()
    if vim.api.nvim_tabpage_is_valid(tab) and #vim.api.nvim_list_tabpages() > 1 then
      vim.cmd('tabclose ' .. vim.api.nvim_tabpage_get_number(tab))
    end
    if vim.api.nvim_tabpage_is_valid(previous) then
      vim.api.nvim_set_current_tabpage(previous)
    end
  end
end

--- Replace the user's lines (`conflict.current`) in the file's buffer by the lines from before the
--- agent's change; returns true when they were found where the hunk's sign stands.
function M.put_back(conflict, hunk)
  local path = signs.path(hunk)
  local buf = vim.fn.bufadd(path)
  vim.fn.bufload(buf)
  signs.refresh(buf)
  local first = signs.rows(buf, hunk.id) or hunk.afterStart or 0
  local current = strip(conflict.current)
  local lines = vim.api.nvim_buf_get_lines(buf, 0, -1, false)
  -- The user's lines, nearest the sign.
  for distance = 0, #lines do
    for _, row in ipairs({ first - distance, first + distance }) do
      if row >= 0 and row + #current <= #lines then
        local same = true
        for i, line in ipairs(current) do
          same = same and lines[row + i] == line
        end
        if same then
          vim.api.nvim_buf_set_lines(buf, row, row + #current, false, strip(hunk.before))
          return true
        end
      end
    end
  end
  return false
end

local CHOICES = {
  "Keep yours (the agent's change counts as reviewed)",
  "Put back the lines from before the agent's change (replaces yours; u undoes it)",
  'Leave it pending',
}

-- One conflict at a time, then the next.
local function ask(conflicts, index, hunks)
  local conflict = conflicts[index]
  if not conflict then
    return
  end
  local hunk = hunks[conflict.hunkID]
  if not hunk then
    return ask(conflicts, index + 1, hunks)
  end
  local close = show_sides(conflict, signs.path(hunk))
  vim.ui.select(CHOICES, {
    prompt = ("Cannot undo the agent's change to %s: %s"):format(conflict.file, conflict.reason),
    kind = 'agentls.review_conflict',
    format_item = tostring,
  }, function(choice)
    close()
    if choice == CHOICES[1] then
      signs.request('keep', { sessionID = hunk.sessionID, hunkIDs = { hunk.id } })
    elseif choice == CHOICES[2] then
      if M.put_back(conflict, hunk) then
        signs.request('keep', { sessionID = hunk.sessionID, hunkIDs = { hunk.id } })
      else
        vim.notify(('agentls: your lines in %s moved; nothing was changed'):format(conflict.file), vim.log.levels.WARN)
      end
    end
    vim.schedule(function()
      ask(conflicts, index + 1, hunks)
    end)
  end)
end

--- Show `conflicts` ({hunkID, file, reason, agent, current}[]) one by one; `hunks`: pending hunks by id.
function M.show(conflicts, hunks)
  ask(conflicts, 1, hunks)
end

return M
