-- :'<,'>AgentlsFix on a visual selection: only the diagnostics on the selected lines go in the
-- prompt (with the file attached); a selection without any sends nothing and says so. What reached
-- the model is checked by the Python side (test_fix_on_a_visual_range).
local T = dofile(os.getenv('AGENTLS_TEST_HELPERS'))
T.setup()

local said = T.notifications()

vim.cmd('edit calc.py')
local calc = vim.api.nvim_get_current_buf()
local lint = vim.api.nvim_create_namespace('fake-lint')
vim.diagnostic.set(lint, calc, {
  { lnum = 1, col = 11, severity = vim.diagnostic.severity.WARN, message = 'subtracts', source = 'fake-lint' },
  { lnum = 5, col = 15, severity = vim.diagnostic.severity.ERROR, message = 'divides by zero', source = 'fake-lint' },
})

local session = T.open()

-- Lines 1-1: no diagnostic there.
vim.api.nvim_set_current_win(vim.fn.bufwinid(calc))
vim.api.nvim_feedkeys(vim.keycode('1GV:AgentlsFix<CR>'), 'mx', false)
T.eq('agentls: no diagnostics here', said[#said].msg, 'what :AgentlsFix said')

-- Lines 5-6: the one on line 6.
vim.api.nvim_set_current_win(vim.fn.bufwinid(calc))
vim.api.nvim_feedkeys(vim.keycode('5GVj:AgentlsFix<CR>'), 'mx', false)
T.wait(function()
  return T.text(T.transcript()):find('Fixed line 6.', 1, true)
end, 'the answer')
T.idle(session)
local text = T.text(T.transcript())
T.ok(text:find('Fix these problems in @calc.py:\n- line 6: divides by zero [fake-lint]', 1, true),
  'the prompt in the transcript:\n' .. text)
T.ok(not text:find('line 2', 1, true), 'nothing of line 2:\n' .. text)
T.finish()
