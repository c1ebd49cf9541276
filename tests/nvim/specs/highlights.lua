-- The plugin's highlight groups: each a default link (a colour scheme's or the user's own colours
-- win), linked again after :colorscheme.
local T = dofile(os.getenv('AGENTLS_TEST_HELPERS'))
vim.api.nvim_set_hl(0, 'AgentlsChip', { fg = '#ff0000' }) -- the user's own, before setup
T.setup()
local links = require('agentls.ui.highlights').LINKS
local function link(name)
  return vim.api.nvim_get_hl(0, { name = name, link = true }).link
end
for name, target in pairs(links) do
  if name ~= 'AgentlsChip' then
    T.eq(target, link(name), name)
  end
end
T.eq(0xff0000, vim.api.nvim_get_hl(0, { name = 'AgentlsChip' }).fg, "the user's colour is kept")
vim.cmd('colorscheme default') -- clears every group, then ColorScheme links them again
for name, target in pairs(links) do
  T.eq(target, link(name), name .. ' after :colorscheme')
end
-- The tool steps' states use them (a colour scheme can tell a failed step from a done one).
for state, shown in pairs(require('agentls.chat.parts').tool_states) do
  T.ok(links[shown.hl], ('%s (%s) is one of the groups'):format(shown.hl, state))
end
T.finish()
