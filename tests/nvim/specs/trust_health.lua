-- :checkhealth agentls in a project with its own agentls.json: the config it reports is the one the
-- server resolves there, so without the project's file until the project is trusted.
local T = dofile(os.getenv('AGENTLS_TEST_HELPERS'))
T.setup()
vim.cmd('checkhealth agentls')
print(T.text(vim.api.nvim_get_current_buf()))
