-- init.lua of the interactive Neovim in tmux (tests/nvim/tmux.py): the plugin with the harness's
-- options, nothing else; Neovim's own vim.ui.select and vim.notify.
vim.o.swapfile = false
vim.o.shortmess = vim.o.shortmess .. 'I'
require('agentls').setup(vim.json.decode(os.getenv('AGENTLS_TEST_CONFIG')))
