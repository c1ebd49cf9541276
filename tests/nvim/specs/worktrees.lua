-- Worktree sessions from Neovim: :AgentlsNew worktree=one and worktree=two start sessions in git
-- worktrees of their own (the winbar and the session picker name them); their turns run at once
-- and change the same file, each in its worktree (two's buffer of the worktree's file gets the edit);
-- :AgentlsWorktrees (vim.ui.select) shows one's diff in a scratch buffer, merges one (squash), merges
-- two (a conflict: its file in the quickfix list), opens two in a tab whose :tcd is the worktree,
-- and discards two after confirming. Bad arguments and names are errors that make nothing.
local T = dofile(os.getenv('AGENTLS_TEST_HELPERS'))
T.setup()
local project = vim.fn.getcwd()

local asked, answers = {}, {}
vim.ui.select = function(items, opts, on_choice)
  local lines = vim.tbl_map(opts.format_item or tostring, items)
  table.insert(asked, { prompt = opts.prompt, kind = opts.kind, lines = lines })
  local want = table.remove(answers, 1)
  T.ok(want ~= nil, 'an answer for ' .. vim.inspect(lines))
  local index = vim.iter(ipairs(lines)):find(function(_, line)
    return line:find(want, 1, true) ~= nil
  end)
  T.ok(index, ('%q among %s'):format(want, vim.inspect(lines)))
  vim.schedule(function()
    on_choice(items[index], index)
  end)
end
local told = T.notifications()
local function said(text)
  return vim.iter(told):find(function(n)
    return n.msg:find(text, 1, true)
  end)
end

local chat = T.chat()
local state = require('agentls').state

-- Bad arguments: nothing is asked of the server, nothing made.
vim.cmd('AgentlsNew bogus')
T.ok(said('takes `worktree` or `worktree=NAME`, not "bogus"'), 'the notice for a bad argument')

local function new(name)
  local before = chat.session_id
  vim.cmd('AgentlsNew worktree=' .. name)
  T.wait(function()
    return chat.session_id ~= before and chat.prompt_win
  end, 'the session in worktree ' .. name)
  return chat.session_id
end

local one = new('one')
local w1 = state.sessions[one].worktree
T.eq({ 'one', 'agentls/one' }, { w1.name, w1.branch }, 'the worktree of the first session')
T.ok(T.winbar():find('⎇ one', 1, true), 'the winbar: ' .. T.winbar())
T.ok(require('agentls.sessions').describe(state.sessions[one]):find('⎇ one', 1, true), 'the picker line')
T.send('task one') -- its answer comes late: the second turn runs meanwhile

local two = new('two')
local w2 = state.sessions[two].worktree
T.ok(T.winbar():find('⎇ two', 1, true), 'the winbar: ' .. T.winbar())
-- The worktree's own file, open in a buffer: the edit of session two lands in it.
vim.cmd('wincmd p')
vim.cmd.edit(vim.fn.fnameescape(w2.path .. '/calc.py'))
local buf = vim.api.nvim_get_current_buf()
T.wait(function()
  return vim.lsp.buf_is_attached(buf, require('agentls.server.client').id)
end, 'the worktree file attached to the server')
T.send('task two')
T.idle(one, 30000)
T.idle(two, 30000)
T.eq({ 'def add(a, b):', '    return b + a' }, T.lines(buf), "the worktree buffer of two's file")
T.eq(false, vim.bo[buf].modified, 'saved')
T.eq('    return a + b', vim.fn.readfile(w1.path .. '/calc.py')[2], "one's file")
T.eq('    return a - b', vim.fn.readfile(project .. '/calc.py')[2], "the checkout's file")

-- :AgentlsWorktrees → one → Diff: a scratch buffer of the branch's changes.
vim.list_extend(answers, { 'one ', 'Diff' })
vim.cmd('AgentlsWorktrees')
T.wait(function()
  return vim.fn.bufnr('agentls://worktree/one.diff') ~= -1
end, 'the diff buffer')
local diff = vim.fn.bufnr('agentls://worktree/one.diff')
T.eq('diff', vim.bo[diff].filetype, 'its filetype')
T.ok(vim.tbl_contains(T.lines(diff), '+    return a + b'), 'the diff: ' .. T.text(diff))
T.eq('Worktrees', asked[1].prompt, 'the list')
T.ok(asked[1].lines[1]:find('^one  agentls/one — 1 file changed, 1 uncommitted · 1 session$'), asked[1].lines[1])
vim.cmd('tabclose')

-- one → Merge… → squash: merged.
vim.list_extend(answers, { 'one ', 'Merge', 'Squash' })
vim.cmd('AgentlsWorktrees')
T.wait(function()
  return said('agentls/one merged into main')
end, 'the merge of one')
T.eq('    return a + b', vim.fn.readfile(project .. '/calc.py')[2], 'the checkout after the merge')

-- two → Merge… → merge commit: a conflict, its file in the quickfix list, nothing lost.
vim.list_extend(answers, { 'two ', 'Merge', 'Merge commit' })
vim.cmd('AgentlsWorktrees')
T.wait(function()
  return said('left conflicts in 1 file(s)')
end, 'the conflict of two')
local qf = vim.fn.getqflist({ title = 1, items = 1 })
T.eq('agentls: merge conflicts of two', qf.title, 'the quickfix title')
T.eq(project .. '/calc.py', vim.api.nvim_buf_get_name(qf.items[1].bufnr), 'the conflicted file')
T.eq('    return b + a', vim.fn.readfile(w2.path .. '/calc.py')[2], "two's file kept")
vim.fn.system({ 'git', '-C', project, 'merge', '--abort' })

-- two → Open in a new tab: the tab's directory is the worktree.
local tabs = #vim.api.nvim_list_tabpages()
vim.list_extend(answers, { 'two ', 'Open in a new tab' })
vim.cmd('AgentlsWorktrees')
T.wait(function()
  return #vim.api.nvim_list_tabpages() == tabs + 1
end, 'the new tab')
T.eq(w2.path, vim.fn.getcwd(-1, 0), "the tab's :tcd")
T.eq(w2.path .. '/calc.py', vim.api.nvim_buf_get_name(0), 'its changed file')
vim.cmd('tabclose')

-- two → Discard… → Cancel: nothing; then Discard: the folder, branch and session are gone.
vim.list_extend(answers, { 'two ', 'Discard', 'Cancel' })
vim.cmd('AgentlsWorktrees')
T.wait(function()
  return #answers == 0
end, 'the cancelled discard')
T.settled()
T.eq(1, vim.fn.isdirectory(w2.path), 'kept after Cancel')
vim.list_extend(answers, { 'two ', 'Discard', 'Discard' })
vim.cmd('AgentlsWorktrees')
T.wait(function()
  return said('discarded the worktree two')
end, 'the discard')
T.eq(0, vim.fn.isdirectory(w2.path), 'the folder of two')
T.wait(function()
  return state.sessions[two] == nil
end, 'the session of two deleted')

-- A name git cannot use: the server's error, nothing made.
vim.cmd('AgentlsNew worktree=-bad')
T.wait(function()
  return said('not a usable worktree name')
end, 'the error of a bad name')
T.finish()
