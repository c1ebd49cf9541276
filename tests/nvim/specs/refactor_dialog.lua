-- A rename over several files asks once, with the diff of every file on screen: the real
-- typescript-language-server renames; the permission dialog (vim.ui.select, replaced here to read
-- the screen when it asks) finds the whole diff in the current tab, and allowing it lands the rename.
-- AGENTLS_TEST_TSLS: the language server's command; AGENTLS_TEST_OUT: what the dialog saw.
local T = dofile(os.getenv('AGENTLS_TEST_HELPERS'))
T.setup()

local tsls = vim.json.decode(os.getenv('AGENTLS_TEST_TSLS'))
vim.api.nvim_create_autocmd('FileType', {
  pattern = 'typescript',
  callback = function(args)
    vim.lsp.start({ name = 'tsls', cmd = tsls, root_dir = vim.fn.getcwd() }, { bufnr = args.buf })
  end,
})
vim.cmd('edit a.ts')
vim.cmd('edit lib.ts')
local lib = vim.api.nvim_get_current_buf()
T.wait(function()
  local c = vim.lsp.get_clients({ bufnr = lib, name = 'tsls' })[1]
  local answer = c and c:request_sync('textDocument/documentSymbol', { textDocument = { uri = vim.uri_from_bufnr(lib) } }, 5000, lib)
  return answer and answer.result and #answer.result > 0
end, 'typescript-language-server to have loaded the project', 60000)

local seen = {}
vim.ui.select = function(choices, opts, on_choice)
  table.insert(seen, { prompt = opts.prompt, screen = T.lines(vim.api.nvim_get_current_buf()), ft = vim.bo.filetype })
  on_choice(choices[1]) -- Allow once
end

local session = T.open()
T.send('rename total to sum')
T.wait(function()
  return T.text(T.transcript()):find('Renamed.', 1, true)
end, 'the answer', 60000)
T.idle(session)
local out = { seen = seen, tabs = #vim.api.nvim_list_tabpages(), a = T.text(vim.fn.bufnr('a.ts')) }
vim.fn.writefile({ vim.json.encode(out) }, os.getenv('AGENTLS_TEST_OUT'))
T.finish()
