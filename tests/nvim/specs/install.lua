-- :AgentlsInstall with no agentls anywhere: the clear reason first, then the managed venv from the
-- plugin's own checkout, then a full turn through the server it installed.
local T = dofile(os.getenv('AGENTLS_TEST_HELPERS'))
local options = vim.deepcopy(T.options)
options.cmd = nil
require('agentls').setup(options)
local config = require('agentls.config')
local install = require('agentls.server.install')

local cmd, reason, short = config.server_cmd()
T.eq(nil, cmd, 'no server before the install')
T.ok(reason:find(':AgentlsInstall', 1, true), 'the reason names :AgentlsInstall, got ' .. reason)
T.eq('not installed, see :AgentlsInstall', short, 'the short reason')
T.eq(os.getenv('EXPECTED_SOURCE'), install.source(), 'installs from the checkout the plugin is in')

local messages = {}
local notify = vim.notify
vim.notify = function(msg, level, opts)
  table.insert(messages, { msg = msg, level = level })
  return notify(msg, level, opts)
end
vim.cmd('AgentlsInstall')
T.ok(install.running, 'the install runs in the background')
T.wait(function()
  return not install.running
end, 'the install to finish', 500000)
local last = messages[#messages]
T.eq(vim.log.levels.INFO, last.level, 'the install succeeded: ' .. vim.inspect(messages))
T.ok(last.msg:find('installed agentls ', 1, true), 'the installed version is named: ' .. last.msg)
T.eq(vim.fn.stdpath('data') .. '/agentls/venv/bin/agentls', install.bin(), 'the venv is under stdpath("data")')

cmd = config.server_cmd()
T.eq(install.bin(), cmd[1], 'the server command is the installed one')

-- A whole turn through it.
T.open()
T.send('hello')
T.wait(function()
  return T.text(T.transcript()):find('Hi from the installed server.', 1, true)
end, 'the answer', 60000)
vim.notify = notify
