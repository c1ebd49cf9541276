-- :AgentlsInstall without a usable Python: one clear error naming what was tried, nothing created.
local T = dofile(os.getenv('AGENTLS_TEST_HELPERS'))
local options = vim.deepcopy(T.options)
options.cmd = nil
options.python = '/nonexistent/python3'
require('agentls').setup(options)
local install = require('agentls.server.install')

local messages = {}
vim.notify = function(msg, level)
  table.insert(messages, { msg = msg, level = level })
end
vim.cmd('AgentlsInstall')
T.eq(1, #messages, 'one message: ' .. vim.inspect(messages))
T.eq(vim.log.levels.ERROR, messages[1].level, 'an error')
T.ok(messages[1].msg:find('needs Python 3.11 or newer, and none was found (tried /nonexistent/python3, python3,', 1, true),
  'the reason, got ' .. messages[1].msg)
T.ok(messages[1].msg:find('setup({ python = ', 1, true), 'the fix, got ' .. messages[1].msg)
T.eq(false, install.running, 'nothing runs')
T.eq(0, vim.fn.isdirectory(install.dir()), 'no venv was made')
