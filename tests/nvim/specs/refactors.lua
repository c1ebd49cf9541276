-- Refactors by the language server Neovim runs: the real typescript-language-server is attached to
-- the TypeScript buffers; the fake model calls organize_imports, rename, code_actions, format (and rename on a file no
-- server serves); test_refactors.py checks what the model received. Then the session's review: the
-- rename's hunks are listed and undone, and the buffers hold the original names again.
-- AGENTLS_TEST_TSLS: the language server's command; AGENTLS_TEST_OUT: where the review is written.
local T = dofile(os.getenv('AGENTLS_TEST_HELPERS'))
T.setup()

local tsls = vim.json.decode(os.getenv('AGENTLS_TEST_TSLS'))
vim.api.nvim_create_autocmd('FileType', {
  pattern = 'typescript',
  callback = function(args)
    vim.lsp.start({ name = 'tsls', cmd = tsls, root_dir = vim.fn.getcwd() }, { bufnr = args.buf })
  end,
})
-- The user's own settings for the file the agent formats: three spaces.
vim.api.nvim_create_autocmd('FileType', {
  pattern = 'typescript',
  callback = function(args)
    vim.bo[args.buf].shiftwidth, vim.bo[args.buf].expandtab = 3, true
  end,
})

local buffers = {}
for _, name in ipairs({ 'lib.ts', 'a.ts', 'b.ts', 'c.ts', 'messy.ts', 'tidy.ts' }) do
  vim.cmd('edit ' .. name)
  buffers[name] = vim.api.nvim_get_current_buf()
end
vim.cmd('edit notes.txt')
T.wait(function()
  return #vim.diagnostic.get(buffers['c.ts']) > 0
end, "the server's diagnostic of c.ts", 60000)

local session = T.open()
T.send('rename total to sum, fix c.ts and format messy.ts')
T.wait(function()
  return T.text(T.transcript()):find('Done.', 1, true)
end, 'the answer', 90000)
T.idle(session)

local client = require('agentls.server.client').get()
local listed = client:request_sync('agent/review/list', { sessionID = session }, 10000)
T.ok(listed and listed.result, 'the review list: ' .. vim.inspect(listed))
local files = {}
for _, hunk in ipairs(listed.result.hunks) do
  files[hunk.file] = (files[hunk.file] or 0) + 1
end
local before = { lib = T.text(buffers['lib.ts']), a = T.text(buffers['a.ts']), b = T.text(buffers['b.ts']) }
local ids = {}
for _, hunk in ipairs(listed.result.hunks) do
  if hunk.file == 'lib.ts' or hunk.file == 'a.ts' or hunk.file == 'b.ts' then
    table.insert(ids, hunk.id)
  end
end
local undone = client:request_sync('agent/review/undo', { sessionID = session, hunkIDs = ids }, 10000)
T.ok(undone and undone.result, 'the undo: ' .. vim.inspect(undone))
local out = {
  files = files,
  renamed = before,
  undone = { lib = T.text(buffers['lib.ts']), a = T.text(buffers['a.ts']), b = T.text(buffers['b.ts']) },
  conflicts = #undone.result.conflicts,
  messy = T.text(buffers['messy.ts']),
  c = T.text(buffers['c.ts']),
  tidy = T.text(buffers['tidy.ts']),
}
vim.fn.writefile({ vim.json.encode(out) }, os.getenv('AGENTLS_TEST_OUT'))
T.finish()
