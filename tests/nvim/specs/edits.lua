-- Edits into buffers with unsaved user changes and into files no buffer shows, a question answered
-- through vim.ui.select, todos, tokens and context use in the winbar.
local T = dofile(os.getenv('AGENTLS_TEST_HELPERS'))
T.setup()

vim.cmd('edit calc.py')
local calc = vim.api.nvim_get_current_buf()
-- The user's unsaved change: the agent reads it, and it stays under the agent's edit.
vim.api.nvim_buf_set_lines(calc, 4, 5, false, { '    return a * b  # mine' })
T.eq(true, vim.bo[calc].modified, 'unsaved user change')

local prompts = {}
vim.ui.select = function(items, opts, on_choice)
  table.insert(prompts, opts.prompt)
  vim.schedule(function()
    if opts.kind == 'agentls.question' then
      for _, item in ipairs(items) do
        if item.label == 'pytest' then
          return on_choice(item)
        end
      end
    end
    on_choice('Always allow')
  end)
end

local session = T.open()
T.send('fix add and take notes @calc.py')
T.idle(session)

-- The question was asked, and the answer went back.
T.ok(vim.tbl_contains(prompts, 'Runner: Which test runner?'), 'the question in ' .. vim.inspect(prompts))
local text = T.text(T.transcript())
T.ok(text:find('The user answered', 1, true), 'the answer in the tool output:\n' .. text)
T.ok(text:find('📎 calc.py', 1, true), 'the attachment:\n' .. text)
T.ok(vim.endswith(text, '### Todo\n- [x] fix add\n- [ ] write notes\n'), 'todos at the end:\n' .. text)

-- calc.py: the user's change and the agent's, saved together; one undo takes back the agent's.
local expected = { 'def add(a, b):', '    return a + b', '', '', '    return a * b  # mine' }
T.eq(expected[2], T.lines(calc)[2], 'agent edit')
T.eq(expected[5], T.lines(calc)[5], 'user change kept')
T.eq(false, vim.bo[calc].modified, 'calc.py saved')
T.eq(T.lines(calc), vim.fn.readfile('calc.py'), 'calc.py on disk')
-- notes.md was not open: it is on disk, and no modified buffer is left behind.
T.eq({ '# Notes', 'add() adds now' }, vim.fn.readfile('notes.md'), 'notes.md on disk')
for _, buf in ipairs(vim.api.nvim_list_bufs()) do
  if vim.bo[buf].buftype == '' then
    T.eq(false, vim.bo[buf].modified, 'modified: ' .. vim.api.nvim_buf_get_name(buf))
  end
end

vim.cmd('checktime')
vim.api.nvim_set_current_buf(calc)
vim.cmd('undo')
T.eq('    return a - b', T.lines(calc)[2], 'agent edit undone')
T.eq('    return a * b  # mine', T.lines(calc)[5], 'user change still there')

-- The winbar: tokens of the last step and the share of the context (100k) they use.
local bar = T.winbar()
T.ok(bar:find('1.2k tokens', 1, true), 'tokens in ' .. bar)
T.ok(bar:find('1%% context', 1, true), 'context use in ' .. bar)
T.finish()
