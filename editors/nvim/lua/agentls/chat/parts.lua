-- How each message and part reads in the transcript: plain data in, {lines, fold?, tool?, stream?}
-- out. `stream` blocks end with their text, so deltas can be appended; `fold` = {first row, ...} of
-- the rows that fold (relative to the block); `tool` is the state shown in the tool line's extmark.
local M = {}

local MAX_OUTPUT_LINES = 200

local function split(text)
  return vim.split(text or '', '\n', { plain = true })
end

local function relpath(path)
  if type(path) ~= 'string' then
    return nil
  end
  local rel = vim.fs.relpath and vim.fs.relpath(vim.fn.getcwd(), path)
  return rel or path
end

M.tool_states = {
  pending = { label = '… pending', hl = 'AgentlsToolPending' },
  running = { label = '⟳ running', hl = 'AgentlsToolRunning' },
  completed = { label = '✓ done', hl = 'AgentlsToolDone' },
  error = { label = '✗ failed', hl = 'AgentlsToolFailed' },
}

local function model_of(info)
  return (info.agent or '?') .. ' · ' .. (info.providerID or '?') .. '/' .. (info.modelID or '?')
end

--- The header of a message. A turn's answer is one or more assistant messages (one per step): the
--- first has the header, a later one only if its agent or model changed (`previous`: the message
--- before it in the session).
function M.header(info, previous)
  if info.role == 'user' then
    return { lines = { '## You' } }
  end
  local lines = {}
  local continued = previous and previous.role == 'assistant'
  if not continued then
    table.insert(lines, (info.agent or info.modelID) and ('## Agent · ' .. model_of(info)) or '## Agent')
  elseif model_of(info) ~= model_of(previous) and (info.agent or info.modelID) then
    table.insert(lines, '## Agent · ' .. model_of(info))
  end
  if info.error then
    if info.error.name == 'aborted' then
      table.insert(lines, '_aborted_')
    else
      table.insert(lines, ('**Error** (%s): %s'):format(info.error.name, info.error.message or ''))
    end
  end
  return { lines = lines }
end

--- What ends a message: an aborted answer is marked where it was cut, too.
function M.footer(info)
  if info.role == 'assistant' and info.error and info.error.name == 'aborted' then
    return { lines = { '_aborted here_' } }
  end
  return { lines = {} }
end

--- A short description of what a tool call works on, from its input: one line (a command of several
--- lines shows its first, with `…`).
function M.tool_subject(part)
  local state = part.state or {}
  local subject = state.title
  if not subject or subject == '' then
    local input = state.input or {}
    subject = relpath(input.filePath) or input.command or input.pattern or input.url or input.description or ''
  end
  if type(subject) ~= 'string' then
    return ''
  end
  local first = subject:match('^([^\n]*)\n')
  return first and (first .. ' …') or subject
end

local function tool(part)
  local state = part.state or {}
  local status = state.status or 'pending'
  local lines = { ('⚙ %s: %s'):format(part.tool, M.tool_subject(part)) }
  local body = {}
  if status == 'completed' and state.output and state.output ~= '' then
    body = split(state.output)
  elseif status == 'error' then
    body = split(state.error)
  end
  if #body > MAX_OUTPUT_LINES then
    local more = #body - MAX_OUTPUT_LINES
    body = vim.list_slice(body, 1, MAX_OUTPUT_LINES)
    table.insert(body, ('… %d more lines'):format(more))
  end
  for _, line in ipairs(body) do
    table.insert(lines, '    ' .. line)
  end
  return {
    lines = lines,
    fold = #body > 0 and { 1 } or nil,
    tool = M.tool_states[status] or M.tool_states.pending,
  }
end

--- The block of one part of a message (text, reasoning, tool call, file, …): its lines and folds.
---@param part agentls.Part
function M.part(part)
  local kind = part.type
  if kind == 'text' then
    local context = type(part.metadata) == 'table' and part.metadata.context or nil
    if part.synthetic and type(context) == 'table' and context.kind == 'subagent' then
      -- A background sub-agent's report to its parent (docs/protocol.md): named, its text folded.
      local lines = { '⤷ report of the background sub-agent ' .. tostring(context.label or '?') }
      for _, line in ipairs(split(part.text)) do
        table.insert(lines, '    ' .. line)
      end
      return { lines = lines, fold = { 1 } }
    end
    if part.synthetic or part.ignored then
      return { lines = {} }
    end
    return { lines = split(part.text), stream = true }
  elseif kind == 'reasoning' then
    local lines = { '▸ Thinking' }
    vim.list_extend(lines, split(part.text))
    return { lines = lines, fold = { 0 }, stream = true }
  elseif kind == 'tool' then
    return tool(part)
  elseif kind == 'file' then
    local source = part.source and part.source.path
    return { lines = { '📎 ' .. (relpath(source) or part.filename or part.url) } }
  elseif kind == 'retry' then
    local err = part.error or {}
    return { lines = { ('↻ retry %d: %s'):format(part.attempt or 0, err.message or '') } }
  elseif kind == 'compaction' then
    return { lines = { '— the conversation above was summarised —' } }
  elseif kind == 'agent' then
    return { lines = { '@' .. part.name } }
  elseif kind == 'hook' then
    local ended = part.timedOut and 'timed out'
      or (part.exitCode == nil or part.exitCode == vim.NIL) and 'did not start'
      or ('exit ' .. part.exitCode)
    local effect = (part.effect and part.effect ~= vim.NIL) and (' · ' .. part.effect) or ''
    local lines =
      { ('⚓ hook %s: %s — %s, %d ms%s'):format(part.event, part.command, ended, part.durationMs or 0, effect) }
    if part.output and part.output ~= '' and (part.timedOut or part.exitCode ~= 0) then
      for _, line in ipairs(split(part.output)) do
        table.insert(lines, '    ' .. line)
      end
    end
    return { lines = lines, fold = #lines > 1 and { 1 } or nil }
  elseif kind == 'subtask' then
    return { lines = { ('↳ %s: %s'):format(part.agent, part.description) } }
  elseif kind == 'patch' then
    local files = {}
    for _, f in ipairs(part.files or {}) do
      table.insert(files, relpath(f))
    end
    return { lines = { '✎ changed ' .. table.concat(files, ', ') } }
  end
  return { lines = {} } -- step-start, step-finish, snapshot: bookkeeping, not for reading
end

local marks = { pending = '[ ]', in_progress = '[~]', completed = '[x]', cancelled = '[-]' }

--- The block of a session's todo list: a checkbox line per item.
function M.todos(todos)
  local lines = { '### Todo' }
  for _, todo in ipairs(todos) do
    table.insert(lines, ('- %s %s'):format(marks[todo.status] or '[ ]', todo.content))
  end
  return { lines = lines }
end

--- The block that marks where a revert took the transcript back to.
function M.revert_marker()
  return { lines = { '⟲ reverted from here — :AgentlsUnrevert brings it back' } }
end

return M
