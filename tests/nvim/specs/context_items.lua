-- Context items in the chat: a toy language server (tests/nvim/toy_ls.py) is attached to the Python
-- buffers, a terminal ran a command, the user selected lines of main.py; the prompt names @problems,
-- @terminal, @symbol:greet and @changes. The chips above the prompt show each item's tokens before
-- sending; test_context_items.py checks what the model received. Then the editor chip is dropped
-- (its keymap) for one prompt, and the setting switches the note off.
local T = dofile(os.getenv('AGENTLS_TEST_HELPERS'))
T.setup()
local items = require('agentls.context.items')

local toy = vim.json.decode(os.getenv('AGENTLS_TEST_TOY_LS'))
vim.api.nvim_create_autocmd('FileType', {
  pattern = 'python',
  callback = function(args)
    vim.lsp.start({ name = 'toy', cmd = toy, root_dir = vim.fn.getcwd() }, { bufnr = args.buf })
  end,
})

vim.cmd('terminal sh -c "printf \'$ make\\nbuild failed: 3 errors\\n\'; exec sleep 60"')
local term = vim.api.nvim_get_current_buf()
T.wait(function()
  return T.text(term):find('build failed', 1, true)
end, 'the terminal output')

vim.cmd('enew')
vim.cmd('edit main.py')
local main = vim.api.nvim_get_current_buf()
local main_win = vim.api.nvim_get_current_win()
T.wait(function()
  return #vim.diagnostic.get(main) > 0
end, "the toy server's diagnostic", 30000)

local session = T.open()
-- The user goes back to main.py and selects its second line (visual mode, then <Esc>).
vim.api.nvim_set_current_win(main_win)
vim.api.nvim_feedkeys(vim.keycode('2GV<Esc>'), 'mx', false)
T.wait(function()
  return items.last and items.last.selection
end, 'the selection to be noted')
T.eq(1, items.last.line, 'the cursor line (0-based)')

local chat = T.chat()
vim.api.nvim_set_current_win(chat.prompt_win)
local text = 'explain @problems @terminal @symbol:greet @changes'
vim.api.nvim_buf_set_lines(chat.prompt_buf, 0, -1, false, { text })
local chip_list = require('agentls.context.chips')
chip_list.refresh(chat.prompt_buf)
T.wait(function()
  return #chip_list.chips == 5 and not chip_list.chip_text():find('?', 1, true)
end, 'the chips to be counted')
local chips = chip_list.chip_text()
for _, label in ipairs({ '@ problems · %d+ tok', '@ greet · %d+ tok', '@ changes · %d+ tok', '✎ main.py:2 · %d+ tok' }) do
  T.ok(chips:find(label), label .. ' in the chips: ' .. chips)
end
local marks = vim.api.nvim_buf_get_extmarks(chat.prompt_buf, -1, 0, -1, { details = true })
T.ok(#marks > 0 and vim.inspect(marks):find('greet', 1, true), 'the chips drawn above the prompt')
vim.api.nvim_feedkeys(vim.keycode('<CR>'), 'mx', false)
T.wait(function()
  return T.text(T.transcript()):find('One.', 1, true)
end, 'the first answer', 40000)
T.idle(session)

-- The editor chip dropped for one prompt: its keymap in the prompt buffer.
vim.api.nvim_set_current_win(chat.prompt_win)
vim.api.nvim_buf_set_lines(chat.prompt_buf, 0, -1, false, { 'second' })
vim.api.nvim_feedkeys(vim.keycode('gC'), 'mx', false)
T.ok(items.editor_off, 'the editor chip dropped')
vim.api.nvim_feedkeys(vim.keycode('<CR>'), 'mx', false)
T.wait(function()
  return T.text(T.transcript()):find('Two.', 1, true)
end, 'the second answer', 40000)
T.idle(session)

-- The setting off: no note at all.
require('agentls.config').options.editor_context = false
T.send('third')
T.wait(function()
  return T.text(T.transcript()):find('Three.', 1, true)
end, 'the third answer', 40000)
T.idle(session)
T.finish()
