-- Run by bench/nvim_events.py in a headless Neovim (`nvim -l`): what one event of a running turn
-- costs the chat view of a long session. A state of AGENTLS_BENCH_MESSAGES messages (every second
-- one an answer with a text and a finished tool call) is drawn whole, then the newest message gets
-- tool state changes, message updates (tokens, completion) and new parts, as a turn sends them; the
-- buffer's text at the end goes to AGENTLS_BENCH_OUT, to compare two versions of the plugin.
vim.opt.rtp:prepend(os.getenv('AGENTLS_BENCH_PLUGIN'))
local count = tonumber(os.getenv('AGENTLS_BENCH_MESSAGES'))
local State = require('agentls.state')
local render = require('agentls.chat.render')

local state = State.new()
local sid = 'ses_bench'
state.sessions[sid] = { id = sid, title = 'a long session' }
local function mid(i)
  return ('msg_%08d'):format(i)
end
local function tool(m, id, status, output)
  return { type = 'message.part.updated', properties = { part = { id = id, messageID = m, sessionID = sid,
    type = 'tool', tool = 'bash', callID = id, state = { status = status, input = { command = 'ls' },
    output = output, title = 'ls' } } } }
end
for i = 1, count do
  local m = mid(i)
  local role = i % 2 == 1 and 'user' or 'assistant'
  state:apply({ type = 'message.updated', properties = { info = { id = m, sessionID = sid, role = role,
    agent = 'build', providerID = 'fake', modelID = 'm', time = { created = i, completed = i } } } })
  state:apply({ type = 'message.part.updated', properties = { part = { id = 'prt_' .. m .. 'a', messageID = m,
    sessionID = sid, type = 'text', text = 'Message ' .. i .. '\nits second line' } } })
  if role == 'assistant' then
    state:apply(tool(m, 'prt_' .. m .. 'b', 'completed', 'a\nb\nc'))
  end
end
local buf = vim.api.nvim_create_buf(false, true)
local view = render.new(state, sid, buf, { coalesce_ms = 16 })
vim.wait(10000, function()
  return view.from == nil
end, 5)

local last = mid(count)
local result = { messages = count, lines = vim.api.nvim_buf_line_count(buf) }
local function per_event(name, reps, event)
  local t0 = vim.uv.hrtime()
  for r = 1, reps do
    state:apply(event(r))
  end
  result[name] = (vim.uv.hrtime() - t0) / 1e6 / reps
end
per_event('tool_state_ms', 200, function(r)
  return tool(last, 'prt_' .. last .. 'b', r % 2 == 0 and 'running' or 'completed', 'a\nb\nc ' .. r)
end)
per_event('message_updated_ms', 200, function(r)
  return { type = 'message.updated', properties = { info = { id = last, sessionID = sid, role = 'assistant',
    agent = 'build', providerID = 'fake', modelID = 'm', time = { created = count, completed = count + r },
    tokens = { input = r, output = r } } } }
end)
per_event('new_part_ms', 50, function(r)
  return { type = 'message.part.updated', properties = { part = { id = ('prt_%sz%05d'):format(last, r),
    messageID = last, sessionID = sid, type = 'text', text = 'new part ' .. r } } }
end)
local out = io.open(os.getenv('AGENTLS_BENCH_OUT'), 'w')
out:write(table.concat(vim.api.nvim_buf_get_lines(buf, 0, -1, false), '\n'))
out:close()
print(vim.json.encode(result))
