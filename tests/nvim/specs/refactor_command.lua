-- A code action whose command edits through the language server's own workspace/applyEdit: the toy
-- language server (tests/nvim/toy_ls.py) is attached to the Python buffers; the fake model lists and
-- applies its "Mark the TODO done" action; test_refactors.py checks what the model received and the file.
-- AGENTLS_TEST_TOY_LS: the toy server's command.
local T = dofile(os.getenv('AGENTLS_TEST_HELPERS'))
T.setup()

local toy = vim.json.decode(os.getenv('AGENTLS_TEST_TOY_LS'))
vim.api.nvim_create_autocmd('FileType', {
  pattern = 'python',
  callback = function(args)
    vim.lsp.start({ name = 'toy', cmd = toy, root_dir = vim.fn.getcwd() }, { bufnr = args.buf })
  end,
})

vim.cmd('edit main.py')
local main = vim.api.nvim_get_current_buf()
T.wait(function()
  return #vim.diagnostic.get(main) > 0
end, "the toy server's diagnostic", 30000)

local session = T.open()
T.send('mark the TODO done')
T.wait(function()
  return T.text(T.transcript()):find('Marked.', 1, true)
end, 'the answer', 40000)
T.idle(session)
T.ok(not vim.bo[main].modified, 'main.py written after the command changed it')
T.finish()
