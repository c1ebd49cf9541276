-- :checkhealth agentls: everything found with the fake model config; then a missing server command.
local T = dofile(os.getenv('AGENTLS_TEST_HELPERS'))
T.setup()

local function health()
  vim.cmd('checkhealth agentls')
  local text = T.text(vim.api.nvim_get_current_buf())
  vim.cmd('bwipeout!')
  return text
end

local good = health()
for _, want in ipairs({ 'OK server: agentls ', 'OK config is valid', 'OK model: fake/m' }) do
  T.ok(good:find(want, 1, true), want .. ' in:\n' .. good)
end
T.ok(not good:find('ERROR', 1, true), 'no error in:\n' .. good)

T.setup({ cmd = { '/nonexistent/agentls', 'serve' } })
local bad = health()
T.ok(bad:find('ERROR the server command "/nonexistent/agentls" is not executable', 1, true), 'the error in:\n' .. bad)
T.ok(bad:find('Fix `cmd`', 1, true), 'the fix in:\n' .. bad)

T.setup({ config = { model = 5 } })
local invalid = health()
T.ok(invalid:find('ERROR the agentls config is not valid', 1, true), 'the config error in:\n' .. invalid)
T.ok(invalid:find('model: must be a string', 1, true), 'the reason in:\n' .. invalid)
print(good)
