-- Neovim opened in a folder below the git work tree's top: the top's agentls.json is the project's
-- too (the server reads every folder from the top down), so the folder is asked about and, until
-- trusted, the server starts untrusted.
local T = dofile(os.getenv('AGENTLS_TEST_HELPERS'))
T.setup()
local trust = require('agentls.server.trust')
local root = vim.fn.getcwd()
local top = vim.fs.dirname(root)
T.eq({ vim.fn.fnamemodify(top .. '/agentls.json', ':~') }, trust.found(root), 'what the folder has of its own')
T.eq(false, trust.trusted(root), 'trusted before an answer')
trust.set(root, 'trusted')
T.eq(true, trust.trusted(root), 'trusted after Trust')

-- A store that is not JSON: said once, every project counts as not trusted, and an answer writes
-- a good one again.
local store = vim.fn.stdpath('state') .. '/agentls/trust.json'
vim.fn.writefile({ '{ not json' }, store)
local warnings = T.notifications(T.at(vim.log.levels.WARN))
T.eq(nil, trust.state(root), 'the answer in a broken store')
T.eq(false, trust.trusted(root), 'trusted with a broken store')
T.eq(1, #warnings, 'warnings for a broken store')
T.ok(warnings[1].msg:find('is not valid JSON', 1, true), 'the warning: ' .. warnings[1].msg)
trust.set(root, 'untrusted')
T.eq('untrusted', trust.state(root), 'the answer written after it')
T.eq(1, #warnings, 'warnings after the store was written again')
