-- Background work from Neovim: a turn starts a background sub-agent and a background shell; the
-- winbar counts them; :AgentlsAgents lists both (through vim.ui.select) with the sub-agent's live
-- step; "Message" asks with vim.ui.input and its next step sees the text; "Stop" kills the shell,
-- then the sub-agent (their processes gone, by /proc); a notification says it was stopped; "Open
-- transcript" shows the sub-agent's session in the chat.
local T = dofile(os.getenv('AGENTLS_TEST_HELPERS'))
T.setup()
local gate, agent_marker, shell_marker = os.getenv('GATE'), os.getenv('AGENT_MARKER'), os.getenv('SHELL_MARKER')

-- Live processes whose command line holds `marker` (as the orphan tests check).
local function running(marker)
  local found = {}
  for _, path in ipairs(vim.fn.glob('/proc/[0-9]*/cmdline', false, true)) do
    local f = io.open(path, 'rb')
    local line = f and f:read('*a') or ''
    if f then
      f:close()
    end
    if line:find(marker, 1, true) then
      table.insert(found, (line:gsub('%z', ' ')))
    end
  end
  return found
end

local asked, inputs = {}, {}
local want = {} -- {pick = fn(items) -> item, action = string} per :AgentlsAgents
vim.ui.select = function(items, opts, on_choice)
  table.insert(asked, { prompt = opts.prompt, kind = opts.kind, lines = vim.tbl_map(opts.format_item, items) })
  local answer
  if opts.kind == 'agentls.background' then
    answer = want[1].pick(items)
  elseif opts.kind == 'agentls.background_action' then
    answer = table.remove(want, 1).action
    T.ok(vim.tbl_contains(items, answer), answer .. ' among ' .. vim.inspect(items))
  end
  vim.schedule(function()
    on_choice(answer, answer and vim.fn.index(items, answer) + 1 or nil)
  end)
end
vim.ui.input = function(opts, on_confirm)
  table.insert(inputs, opts)
  vim.schedule(function()
    on_confirm('MSG-NV: look at the docs too')
  end)
end
local told = T.notifications()
local ended = {}
vim.api.nvim_create_autocmd('User', {
  pattern = 'AgentlsAgentEnded',
  callback = function(ev)
    table.insert(ended, ev.data)
  end,
})
local bg = require('agentls.sessions.background')
local function the_agent(items)
  return vim.iter(items):find(function(e)
    return e.agent ~= nil
  end)
end
local function the_shell(items)
  return vim.iter(items):find(function(e)
    return e.shell ~= nil
  end)
end
local function agent()
  return vim.tbl_values(bg.agents)[1]
end

local session = T.open()
T.send('start the long job')
T.wait(function()
  local a = agent()
  return a and a.step == 1 and a.tool == 'bash' and T.winbar():find('⧗ 1 agent · 1 shell', 1, true)
end, 'the sub-agent at its waiting step, counted in the winbar')

table.insert(want, { pick = the_agent, action = 'Message' })
vim.cmd('AgentlsAgents')
T.wait(function()
  return vim.iter(told):find(function(n)
    return n.msg:find('its next step sees it', 1, true)
  end)
end, 'the message sent')
local listed = asked[1]
T.eq('Background agents and shells', listed.prompt, 'the picker')
T.ok(listed.lines[1]:find('^@general  the long job — step 2, running bash · ') ~= nil, 'its line: ' .. listed.lines[1])
T.ok(listed.lines[2]:find('^shell_1  %$ .* — running · ') ~= nil, 'the shell: ' .. listed.lines[2])
T.ok(inputs[1].prompt:find('Message to @general (the long job)', 1, true), 'the input: ' .. inputs[1].prompt)
local f = assert(io.open(gate, 'w'))
f:write('open')
f:close()
T.wait(function()
  return agent().step == 2 and agent().tool == 'bash' and #running(agent_marker) > 0
end, 'its next step, blocked in a command')

table.insert(want, { pick = the_shell, action = 'Stop' })
T.ok(#running(shell_marker) > 0, 'the shell runs')
vim.cmd('AgentlsAgents')
T.wait(function()
  return bg.shells.shell_1.status == 'stopped'
end, 'the shell stopped')
T.eq({}, running(shell_marker), 'the shell process')
T.ok(T.winbar():find('⧗ 1 agent', 1, true) and not T.winbar():find('shell', 1, true), 'the winbar: ' .. T.winbar())

table.insert(want, { pick = the_agent, action = 'Stop' })
vim.cmd('AgentlsAgents')
T.wait(function()
  return agent().status == 'stopped'
end, 'the sub-agent stopped')
T.eq({}, running(agent_marker), 'its command')
T.wait(function()
  return vim.iter(told):find(function(n)
    return n.msg:find('agentls: the background sub-agent @general', 1, true)
  end)
end, 'the notification')
T.ok(not T.winbar():find('⧗', 1, true), 'nothing runs: ' .. T.winbar())
T.eq({ 'stopped', 'stopped' }, { ended[1].agent.status, ended[1].summary }, 'User AgentlsAgentEnded')
T.idle(session)
T.wait(function()
  return T.text(T.transcript()):find('⤷ report of the background sub-agent @general: the long job', 1, true)
end, "the sub-agent's report, named, in the parent's transcript")
T.ok(T.text(T.transcript()):find('was stopped by the user', 1, true), 'its text (folded) in the buffer')
T.wait(function()
  return T.text(T.transcript()):find('Noted: it was stopped.', 1, true)
end, "the parent's answer to the news")
T.idle(session)

table.insert(want, { pick = the_agent, action = 'Open transcript' })
local child = agent().sessionID
vim.cmd('AgentlsAgents')
T.wait(function()
  return T.chat().session_id == child
end, "the sub-agent's transcript in the chat")
T.wait(function()
  return T.text(T.transcript()):find('bash', 1, true)
end, 'its steps')
-- The sub-agent's commands span lines: each tool line shows the first (the buffer takes no newline).
T.eq('a …', require('agentls.chat.parts').tool_subject({ state = { input = { command = 'a\nb' } } }), 'a two-line command')
T.finish()
