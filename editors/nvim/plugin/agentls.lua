-- agentls: a load guard and the user commands; everything else loads on first use.
if vim.g.loaded_agentls or vim.fn.has('nvim-0.10') == 0 then
  return
end
vim.g.loaded_agentls = true

local function agentls()
  return require('agentls')
end

local function cmd(name, fn, opts)
  vim.api.nvim_create_user_command(name, fn, vim.tbl_extend('force', { desc = 'agentls' }, opts or {}))
end

cmd('Agentls', function()
  agentls().open()
end, { desc = 'agentls: open the chat' })
cmd('AgentlsNew', function(o)
  local worktree = require('agentls.sessions.worktrees').parse_new(o.args)
  if worktree ~= false then
    agentls().new_session(worktree or nil)
  end
end, {
  nargs = '?',
  complete = function()
    return { 'worktree', 'worktree=' }
  end,
  desc = 'agentls: start a new session (worktree[=NAME]: in a new git worktree of its own)',
})
cmd('AgentlsWorktrees', function()
  require('agentls').setup_once()
  require('agentls.sessions.worktrees').pick()
end, { desc = "agentls: the project's worktrees: diff, merge, open in a tab or discard one" })
cmd('AgentlsSessions', function(o)
  agentls().open({ insert = false }) -- the picker comes next
  require('agentls.sessions').pick(o.args)
end, { nargs = '*', desc = 'agentls: sessions, or those matching a query (switch, rename, delete, fork)' })
cmd('AgentlsAbort', function()
  agentls().abort()
end, { desc = 'agentls: abort the running turn' })
cmd('AgentlsAsk', function(o)
  local first, last = nil, nil
  if o.range > 0 then
    first, last = o.line1, o.line2
  end
  agentls().ask(vim.api.nvim_get_current_buf(), first, last, o.args)
end, { range = true, nargs = '*', desc = 'agentls: ask about the selection (or the file)' })
cmd('AgentlsEdit', function(o)
  local first, last = o.line1, o.line2
  if o.range == 0 then -- no range: the cursor's line
    first = vim.fn.line('.')
    last = first
  end
  agentls().edit(vim.api.nvim_get_current_buf(), first, last, o.args)
end, { range = true, nargs = '*', desc = 'agentls: have the agent change the selected lines in place (to review)' })
cmd('AgentlsFix', function(o)
  local buf = vim.api.nvim_get_current_buf()
  local first, last = nil, nil
  if o.range > 0 then
    first, last = o.line1, o.line2
  end
  local prompt = require('agentls.server.diagnostics').fix_prompt(buf, first, last)
  if not prompt then
    return vim.notify('agentls: no diagnostics here', vim.log.levels.INFO)
  end
  agentls().fix(prompt)
end, { range = true, desc = 'agentls: ask the agent to fix the diagnostics' })
cmd('AgentlsQueue', function()
  require('agentls.chat').queue_menu()
end, { desc = 'agentls: the queued prompts (edit or remove one)' })
cmd('AgentlsAgents', function()
  require('agentls').setup_once()
  require('agentls.sessions.background').pick()
end, { desc = 'agentls: background sub-agents and shells (open, message or stop one)' })
cmd('AgentlsInlineDiff', function(o)
  require('agentls').setup_once()
  local arg = vim.trim(o.args)
  require('agentls.review.inline').toggle(arg == 'on' or (arg ~= 'off' and nil))
end, {
  nargs = '?',
  complete = function()
    return { 'on', 'off' }
  end,
  desc = 'agentls: show (or hide) the lines pending agent changes replaced, above them',
})
cmd('AgentlsMcp', function()
  require('agentls').setup_once()
  require('agentls.server.mcp_servers').pick()
end, { desc = 'agentls: the MCP servers (running, failed, disabled): restart, disable or enable one' })
cmd('AgentlsPlanApprove', function()
  require('agentls').setup_once()
  require('agentls.review.plan').approve()
end, { desc = 'agentls: approve the plan under review (the build agent carries it out)' })
cmd('AgentlsPlanReject', function(o)
  require('agentls').setup_once()
  require('agentls.review.plan').reject(o.args)
end, { nargs = '*', desc = 'agentls: reject the plan under review, with a message' })
cmd('AgentlsPlanRevise', function(o)
  require('agentls').setup_once()
  require('agentls.review.plan').revise(o.args)
end, { nargs = '*', desc = "agentls: send the plan's comments (and a message) back for revision" })
cmd('AgentlsPlanComment', function(o)
  require('agentls').setup_once()
  require('agentls.review.plan').comment(o)
end, { range = true, nargs = '*', desc = 'agentls: comment on lines of the plan under review' })
cmd('AgentlsDialog', function()
  require('agentls.dialogs').open()
end, { desc = 'agentls: open the permission or question dialog that waits for an answer' })
cmd('AgentlsRestart', function()
  agentls().restart()
end, { desc = 'agentls: restart the server (the chat reloads its session)' })
cmd('AgentlsTrust', function()
  agentls().trust()
end, { desc = 'agentls: trust this project (its own agentls.json, commands, .venv/bin/agentls) or not' })
cmd('AgentlsRevert', function()
  require('agentls.sessions').revert()
end, { desc = "agentls: undo the agent's file changes from a prompt on" })
cmd('AgentlsUnrevert', function()
  require('agentls.sessions').unrevert()
end, { desc = 'agentls: undo the last revert' })
cmd('AgentlsDiff', function()
  require('agentls.sessions').diff()
end, { desc = "agentls: the session's changes in a diff tab" })
cmd('AgentlsReview', function(o)
  require('agentls.review.list').command(o.fargs)
end, {
  nargs = '*',
  complete = function()
    return { 'list', 'keep', 'undo' }
  end,
  desc = "agentls: the agent's changes to review (keep or undo all, by file; list: the quickfix list)",
})
cmd('AgentlsMode', function(o)
  require('agentls.sessions.mode').set_mode(o.args)
end, {
  nargs = '?',
  complete = function()
    return require('agentls.sessions.mode').complete_mode()
  end,
  desc = "agentls: the session's mode: ask (a dialog before each edit), auto (review after), plan (read-only)",
})
cmd('AgentlsEffort', function(o)
  require('agentls.sessions.mode').set_effort(o.args)
end, {
  nargs = '?',
  complete = function()
    return require('agentls.sessions.mode').complete_effort()
  end,
  desc = "agentls: how hard the session's model thinks (the levels it supports)",
})
cmd('AgentlsExport', function(o)
  require('agentls.chat.export').export(require('agentls.chat').session_id, o.args, o.bang)
end, {
  nargs = '?',
  bang = true,
  complete = 'file',
  desc = "agentls: the chat's session as Markdown (a buffer, or [path])",
})
cmd('AgentlsChat', function(o)
  require('agentls').setup_once()
  require('agentls.chat.tabs').command(o.args)
end, {
  nargs = '?',
  complete = function()
    return require('agentls.chat.tabs').complete()
  end,
  desc = "agentls: a session's chat in a tab of its own (new: a new session; no argument: pick one)",
})
cmd('AgentlsComment', function(o)
  require('agentls').setup_once()
  require('agentls.review.comments').command(o)
end, {
  range = true,
  nargs = '*',
  complete = function()
    return { 'submit', 'clear' }
  end,
  desc = "agentls: comment on lines (an agent change); 'submit' sends the batch to the agent, 'clear' drops it",
})
cmd('AgentlsAgent', function()
  agentls().open()
  require('agentls.sessions').pick_config('agent')
end, { desc = 'agentls: choose the agent' })
cmd('AgentlsModel', function()
  agentls().open()
  require('agentls.sessions').pick_config('model')
end, { desc = 'agentls: choose the model' })
cmd('AgentlsInstall', function()
  require('agentls.server.install').install()
end, { desc = "agentls: install the server into a venv of its own (stdpath('data'))" })
