-- The server killed mid-answer (SIGKILL, as the OOM killer would): the plugin says so once, starts
-- it again, the chat shows the session's transcript from the store (the prompt and the interrupted
-- answer), and the next prompt is answered in the same session.
local T = dofile(os.getenv('AGENTLS_TEST_HELPERS'))
T.setup()

-- What the plugin says (Neovim itself also says 'Client agentls quit with exit code 0 and signal 9'
-- for any language server that dies: not the plugin's to silence).
local said = T.notifications(function(msg)
  return not vim.startswith(msg, 'Client agentls quit')
end)

local session = T.open()
T.send('tell me a long story')
T.wait(function()
  return T.text(T.transcript()):find('Once upon', 1, true)
end, 'the first deltas')

local client = require('agentls.server.client')
local old = client.id
local function server_pid()
  for _, pid in ipairs(vim.api.nvim_get_proc_children(vim.fn.getpid())) do
    local proc = vim.api.nvim_get_proc(pid)
    if proc and proc.name and (proc.name:find('agentls', 1, true) or proc.name:find('python', 1, true)) then
      return pid
    end
  end
end
-- The transcript is rebuilt from the store once the new server answers (a 'reset' of the session).
local reset = false
local unsubscribe
unsubscribe = require('agentls').state:subscribe(function(kind, sid)
  reset = reset or (kind == 'reset' and sid == session)
end)
local pid = T.ok(server_pid(), 'the server process among ' .. vim.inspect(vim.api.nvim_get_proc_children(vim.fn.getpid())))
vim.uv.kill(pid, 'sigkill')

T.wait(function()
  return client.id and client.id ~= old and client.ready
end, 'a new server')
T.eq(1, #said, 'one message: ' .. vim.inspect(said))
T.eq('agentls: the server stopped (exit code 0, signal 9); restarting it', said[1].msg, 'what it said')
T.eq(vim.log.levels.WARN, said[1].level, 'a warning')
T.eq(session, T.chat().session_id, 'the same session')

-- The transcript, rebuilt from the store: the prompt and what had streamed before the kill.
T.wait(function()
  return reset
end, 'the reload')
-- The store ended the interrupted answer as aborted: only a transcript from the store says so. (What
-- had streamed is there as far as the server had written it: its writes of deltas are batched, so
-- the last ones before a SIGKILL may be missing.)
local text = T.text(T.transcript())
T.ok(text:find('## You\n\ntell me a long story\n\n## Agent · build · fake/m\n_aborted_\n', 1, true),
  'the transcript from the store:\n' .. text)
unsubscribe()

T.wait(function()
  return T.winbar():find('│ build · fake/m$')
end, 'the agent and model in the winbar again: ' .. T.winbar())

T.send('and now a short one')
T.wait(function()
  return T.text(T.transcript()):find('The end.', 1, true)
end, 'the answer after the restart')
T.idle(session)
T.eq(1, #said, 'still one message: ' .. vim.inspect(said))

-- :AgentlsRestart: the same, asked for (nothing to say), e.g. after updating agentls.
old, reset = client.id, false
unsubscribe = require('agentls').state:subscribe(function(kind, sid)
  reset = reset or (kind == 'reset' and sid == session)
end)
vim.cmd('AgentlsRestart')
T.wait(function()
  return client.id and client.id ~= old and client.ready and reset
end, 'the restarted server and the reloaded session')
unsubscribe()
T.ok(T.text(T.transcript()):find('The end.', 1, true), 'the transcript:\n' .. T.text(T.transcript()))
T.wait(function()
  return T.winbar():find('│ build · fake/m$')
end, 'the agent and model in the winbar after :AgentlsRestart')
T.eq(1, #said, 'nothing more said: ' .. vim.inspect(said))
T.finish()
