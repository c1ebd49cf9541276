-- A task's sub-agent inside its fold: a `task` tool part names its child session
-- (`state.metadata.sessionID`, docs/protocol.md "Sub-agents"); the child's steps, from the state's
-- transcript of that session, are drawn under the task line, in the fold with its output, and are
-- redrawn as the child streams. A child's own tasks nest one level deeper.
local State = require('agentls.state')

local M = {}

local MAX_TEXT_LINES = 6
local MAX_DEPTH = 3
local MARK = { pending = '…', running = '⟳', completed = '✓', error = '✗' }

--- The child session a task part runs, once the server has named it.
function M.child_of(part)
  if part.type ~= 'tool' or part.tool ~= 'task' then
    return nil
  end
  local meta = part.state and part.state.metadata
  local id = type(meta) == 'table' and meta.sessionID or nil
  return type(id) == 'string' and id or nil
end

local function step_lines(state, session_id, indent, depth, out, subject)
  local t = state.transcripts[session_id]
  if not t then
    return
  end
  for _, mid in ipairs(t.order) do
    local m = t.messages[mid]
    if m.info.role == 'assistant' then
      for _, part in ipairs(m.parts) do
        if part.type == 'tool' then
          local status = part.state and part.state.status or 'pending'
          table.insert(out, ('%s↳ %s %s: %s'):format(indent, MARK[status] or '…', part.tool, subject(part)))
          local child = M.child_of(part)
          if child and depth < MAX_DEPTH then
            step_lines(state, child, indent .. '  ', depth + 1, out, subject)
          end
        elseif part.type == 'text' and not part.synthetic then
          local lines = vim.split(State.settle(part).text or '', '\n', { plain = true, trimempty = true })
          for i, line in ipairs(lines) do
            if i > MAX_TEXT_LINES then
              table.insert(out, indent .. '  …')
              break
            end
            table.insert(out, indent .. '  ' .. line)
          end
        end
      end
    end
  end
end

--- `render` (a task part's block) with its child's steps after the task line, folded with the
--- output. `subject(part)` names what a tool call works on (agentls.chat.parts.tool_subject).
function M.decorate(state, part, render, subject)
  local child = M.child_of(part)
  if not child then
    return render
  end
  local steps = {}
  step_lines(state, child, '    ', 1, steps, subject)
  if #steps == 0 then
    return render
  end
  local lines = { render.lines[1] }
  vim.list_extend(lines, steps)
  vim.list_extend(lines, render.lines, 2)
  render.lines = lines
  render.fold = { 1 }
  return render
end

--- The task block of the view's session that shows `session_id` (a child, or a child's child), as
--- the key `key_of(message id, part id)` of the view's blocks, or nil.
function M.card_of(state, view_session, session_id, key_of)
  local seen = 0
  local target = session_id
  while seen < MAX_DEPTH do
    local info = state.sessions[target]
    local parent = info and info.parentID
    if not parent then
      return nil
    end
    local t = state.transcripts[parent]
    if parent == view_session and t then
      for _, mid in ipairs(t.order) do
        for _, part in ipairs(t.messages[mid].parts) do
          if M.child_of(part) == target then
            return key_of(mid, part.id)
          end
        end
      end
      return nil
    end
    target = parent
    seen = seen + 1
  end
  return nil
end

return M
