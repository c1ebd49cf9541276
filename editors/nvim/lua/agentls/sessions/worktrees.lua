-- Worktree sessions (docs/protocol.md, "Worktree sessions"): `:AgentlsNew worktree[=NAME]` starts a
-- session in a new git worktree of the project, on its own branch, so that sessions running side by
-- side never write your checkout or each other's files; `:AgentlsWorktrees` lists the project's
-- worktrees with Neovim's own `vim.ui.select` — the diff in a scratch buffer, a merge (merge
-- commit, squash or fast-forward only; a conflict is left in your checkout, its files in the
-- quickfix list), open (a new tab whose `:tcd` is the worktree), discard (after you confirm). The
-- agent's edits of a worktree session are edits of the worktree's files: their buffers are the
-- worktree's paths, attached to the server like the project's.
local client = require('agentls.server.client')

local M = {}

--- The worktrees' folders this client knows of (their files are attached like the project's).
---@type table<string, boolean>
M.folders = {}

local function report(err)
  if err then
    vim.notify('agentls: ' .. (err.message or vim.inspect(err)), vim.log.levels.ERROR)
  end
  return err ~= nil
end

--- Note the worktree of `session` (a Session from the server), if it has one.
---@param session agentls.Session
function M.seen(session)
  local worktree = session and session.worktree
  if type(worktree) == 'table' and worktree.path then
    M.folders[vim.fs.normalize(worktree.path)] = true
  end
end

--- Whether `path` (normalized) is inside the worktree of a session this client knows.
function M.holds(path)
  for folder in pairs(M.folders) do
    if vim.startswith(path, folder .. '/') then
      return true
    end
  end
  local state = require('agentls').state
  for _, session in pairs(state and state.sessions or {}) do
    M.seen(session)
  end
  for folder in pairs(M.folders) do
    if vim.startswith(path, folder .. '/') then
      return true
    end
  end
  return false
end

--- The worktree name `:AgentlsNew` was given: `worktree` (a name from the time) or `worktree=NAME`;
--- nil for no argument; false (and a notice) for anything else.
---@param args string
---@return string|nil|false
function M.parse_new(args)
  local arg = vim.trim(args or '')
  if arg == '' then
    return nil
  end
  if arg == 'worktree' then
    return ''
  end
  local name = arg:match('^worktree=(.+)$')
  if name then
    return name
  end
  vim.notify(('agentls: :AgentlsNew takes `worktree` or `worktree=NAME`, not %q'):format(arg), vim.log.levels.WARN)
  return false
end

-- "3 files changed, 1 uncommitted · 2 sessions" and the like.
---@param w agentls.WorktreeInfo
function M.describe(w)
  local what
  if w.missing then
    what = 'its folder is gone'
  elseif w.merged then
    what = 'nothing left to merge'
  else
    what = ('%d file%s changed'):format(#w.changed, #w.changed == 1 and '' or 's')
    if w.uncommitted > 0 then
      what = what .. (', %d uncommitted'):format(w.uncommitted)
    end
  end
  local sessions = #w.sessionIDs
  return ('%s  %s — %s · %d session%s'):format(w.name, w.branch, what, sessions, sessions == 1 and '' or 's')
end

--- The diff of worktree `name` in a scratch buffer (a new tab), `agentls://worktree/NAME.diff`.
function M.diff(name)
  client.request('agent/worktree/diff', { name = name }, function(err, result)
    if report(err) then
      return
    end
    vim.schedule(function()
      local bufname = ('agentls://worktree/%s.diff'):format(name)
      local old = vim.fn.bufnr(bufname)
      if old ~= -1 then
        vim.api.nvim_buf_delete(old, { force = true })
      end
      vim.cmd('tabnew')
      local buf = vim.api.nvim_get_current_buf()
      vim.bo[buf].buftype = 'nofile'
      vim.bo[buf].bufhidden = 'wipe'
      vim.bo[buf].swapfile = false
      vim.api.nvim_buf_set_name(buf, bufname)
      local lines = result.diff ~= '' and vim.split(result.diff, '\n', { plain = true })
        or { '(no changes in ' .. name .. ')' }
      if lines[#lines] == '' then
        table.remove(lines)
      end
      vim.api.nvim_buf_set_lines(buf, 0, -1, false, lines)
      vim.bo[buf].modifiable = false
      vim.bo[buf].filetype = 'diff'
    end)
  end)
end

local HOW = {
  { how = 'merge', label = 'Merge commit' },
  { how = 'squash', label = 'Squash into one commit' },
  { how = 'ff-only', label = 'Fast-forward only' },
}

--- Merge worktree `name`'s branch into the checkout's, `how` = 'merge' | 'squash' | 'ff-only';
--- `done(result)` gets the outcome (after it is said).
function M.merge(name, how, done)
  client.request('agent/worktree/merge', { name = name, how = how }, function(err, result)
    if report(err) then
      return
    end
    vim.schedule(function()
      local level = result.outcome == 'merged' and vim.log.levels.INFO or vim.log.levels.WARN
      local files = #result.files > 0 and (': ' .. table.concat(result.files, ', ')) or ''
      vim.notify('agentls: ' .. result.message .. files, level)
      if result.outcome == 'conflict' then -- the files to resolve, in the quickfix list
        local root = require('agentls.config').root()
        local items = vim.tbl_map(function(file)
          return { filename = root .. '/' .. file, lnum = 1, text = 'conflict: merging ' .. name }
        end, result.files)
        vim.fn.setqflist({}, ' ', { title = 'agentls: merge conflicts of ' .. name, items = items })
      end
      vim.api.nvim_exec_autocmds('User', { pattern = 'AgentlsWorktreeMerged', data = result })
      if done then
        done(result)
      end
    end)
  end)
end

--- Open worktree `w` in a new tab whose working directory (`:tcd`) is the worktree.
---@param w agentls.WorktreeInfo
function M.open(w)
  M.folders[vim.fs.normalize(w.path)] = true
  vim.cmd('tabnew')
  vim.cmd.tcd(vim.fn.fnameescape(w.path))
  local first = w.changed[1]
  if first then
    vim.cmd.edit(vim.fn.fnameescape(w.path .. '/' .. first))
  end
end

--- Discard worktree `name` (its folder, branch and sessions) once the user confirms.
function M.discard(name, done)
  local prompt = ('Discard the worktree %s, its branch and its sessions? What it holds is lost.'):format(name)
  vim.ui.select({ 'Discard', 'Cancel' }, { prompt = prompt, kind = 'agentls.worktree_discard' }, function(choice)
    if choice ~= 'Discard' then
      return
    end
    client.request('agent/worktree/discard', { name = name }, function(err)
      if report(err) then
        return
      end
      vim.schedule(function()
        vim.notify('agentls: discarded the worktree ' .. name, vim.log.levels.INFO)
        if done then
          done()
        end
      end)
    end)
  end)
end

local function act(w)
  local actions = { 'Diff', 'Merge…', 'Open in a new tab', 'Discard…' }
  vim.ui.select(actions, { prompt = M.describe(w), kind = 'agentls.worktree_action' }, function(action)
    if action == 'Diff' then
      M.diff(w.name)
    elseif action == 'Merge…' then
      local opts = {
        prompt = ('Merge %s into your branch'):format(w.branch),
        kind = 'agentls.worktree_merge',
        format_item = function(item)
          return item.label
        end,
      }
      vim.ui.select(HOW, opts, function(choice)
        if choice then
          M.merge(w.name, choice.how)
        end
      end)
    elseif action == 'Open in a new tab' then
      M.open(w)
    elseif action == 'Discard…' then
      M.discard(w.name)
    end
  end)
end

--- :AgentlsWorktrees — the project's worktrees (fresh from the server) in `vim.ui.select`; the one
--- picked offers Diff, Merge…, Open in a new tab, Discard….
function M.pick()
  client.request('agent/worktree/list', vim.empty_dict(), function(err, result)
    if report(err) then
      return
    end
    vim.schedule(function()
      if not result.available then
        return vim.notify('agentls: no worktree sessions here: ' .. (result.reason or '?'), vim.log.levels.WARN)
      end
      if #result.worktrees == 0 then
        return vim.notify(
          'agentls: no worktrees yet (:AgentlsNew worktree starts a session in one)',
          vim.log.levels.INFO
        )
      end
      for _, w in ipairs(result.worktrees) do
        M.folders[vim.fs.normalize(w.path)] = true
      end
      local opts = { prompt = 'Worktrees', kind = 'agentls.worktree', format_item = M.describe }
      vim.ui.select(result.worktrees, opts, function(w)
        if w then
          act(w)
        end
      end)
    end)
  end)
end

return M
