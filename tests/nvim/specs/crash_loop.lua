-- A server that keeps dying is restarted 3 times within a minute, then left stopped with an error
-- (naming its log) instead of being restarted forever; :Agentls starts it again.
local T = dofile(os.getenv('AGENTLS_TEST_HELPERS'))
T.setup()

local said = T.notifications(function(msg)
  return vim.startswith(msg, 'agentls:')
end)

local client = require('agentls.server.client')
local function kill()
  local old = client.id
  for _, pid in ipairs(vim.api.nvim_get_proc_children(vim.fn.getpid())) do
    local proc = vim.api.nvim_get_proc(pid)
    if proc and proc.name and (proc.name:find('agentls', 1, true) or proc.name:find('python', 1, true)) then
      vim.uv.kill(pid, 'sigkill')
    end
  end
  T.wait(function()
    return client.id ~= old
  end, 'the old server to go')
end

T.open()
for i = 1, 3 do
  kill()
  T.wait(function()
    return client.id and client.ready
  end, 'restart ' .. i)
end
kill()
T.wait(function()
  return #said == 4
end, 'the last message')
T.eq(nil, client.get(), 'no fourth restart')
for i = 1, 3 do
  T.eq(vim.log.levels.WARN, said[i].level, 'a warning for restart ' .. i)
end
T.eq(vim.log.levels.ERROR, said[4].level, 'an error at last')
T.ok(said[4].msg:find('stopped again (exit code 0, signal 9), 4 times in a minute: :Agentls starts it again', 1, true)
  and said[4].msg:find(T.options.log_file, 1, true), 'the last message: ' .. said[4].msg)

vim.cmd('Agentls')
T.wait(function()
  return client.id and client.ready
end, ':Agentls starting it again')
T.finish()
