-- The agent asks the language servers Neovim runs: a toy language server (tests/nvim/toy_ls.py) is
-- attached to the Python buffers; the fake model calls the editor_* tools, which the plugin answers
-- through vim.lsp (and vim.diagnostic); test_editor_queries.py checks what the model received.
-- AGENTLS_TEST_TOY_LS: the toy server's command (empty: no language server at all).
local T = dofile(os.getenv('AGENTLS_TEST_HELPERS'))
T.setup()

local toy = vim.json.decode(os.getenv('AGENTLS_TEST_TOY_LS'))
if #toy > 0 then
  vim.api.nvim_create_autocmd('FileType', {
    pattern = 'python',
    callback = function(args)
      vim.lsp.start({ name = 'toy', cmd = toy, root_dir = vim.fn.getcwd() }, { bufnr = args.buf })
    end,
  })
end

vim.cmd('edit main.py')
local main = vim.api.nvim_get_current_buf()
if #toy > 0 then
  T.wait(function()
    return #vim.diagnostic.get(main) > 0
  end, "the toy server's diagnostic", 30000)
end

local session = T.open()
T.send('where is greet defined and used?')
T.wait(function()
  return T.text(T.transcript()):find('The answer.', 1, true)
end, 'the answer', 40000)
T.idle(session)

local transcript = T.text(T.transcript())
local tools = #toy > 0 and { 'editor_definition', 'editor_references', 'editor_hover', 'editor_diagnostics' }
  or { 'editor_definition' }
for _, tool in ipairs(tools) do
  T.ok(transcript:find('⚙ ' .. tool, 1, true), tool .. ' in the transcript:\n' .. transcript)
end
T.finish()
