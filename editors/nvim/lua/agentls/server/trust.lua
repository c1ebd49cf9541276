-- Project trust: whether the agent may act on what a project brings of its own. A cloned project can
-- hold an agentls.json (its MCP servers are programs, its rules can allow commands), command files
-- (a ``!`cmd` `` runs a shell), agent files, skills, and a .venv/bin/agentls that would be run as the
-- server. None of it is used until the user trusts the project (like VS Code's Restricted Mode,
-- docs/protocol.md `initializationOptions.untrusted`); the user's own config always applies.
--
-- The answer is kept per project folder in stdpath('state')/agentls/trust.json: 'trusted' or
-- 'untrusted' ("never ask again"). A project that holds none of these things is not asked about.
local gate = require('agentls.dialogs.gate')

local M = {}

--- What a project may hold that trust enables, relative to its root (a folder covers all in it).
--- tests/nvim/test_trust.py checks that this covers every project path the server reads.
M.ITEMS = {
  'agentls.json',
  'agentls.jsonc',
  '.agentls',
  '.claude/commands',
  '.opencode/command',
  '.opencode/commands',
  '.venv/bin/agentls',
}

--- Choices of the dialog, in its order.
M.TRUST, M.NOT_NOW, M.NEVER = 'Trust this project', 'Not now', 'Never (remember: untrusted)'

-- Asked and answered "Not now" in this Neovim (not stored): not asked again until :AgentlsTrust.
local not_now = {}
local asking = nil -- the root a dialog is open or waiting for
local cancel_wait = nil -- stops the wait for a pause of the dialog that waits for one

local function store_path()
  return vim.fn.stdpath('state') .. '/agentls/trust.json'
end

local warned = false

local function read_store()
  local file = io.open(store_path(), 'r')
  if not file then
    return {}
  end
  local text = file:read('*a')
  file:close()
  local ok, data = pcall(vim.json.decode, text)
  if ok and type(data) == 'table' then
    return data
  end
  if warned then
    return {}
  end
  warned = true
  vim.notify(
    ('agentls: %s is not valid JSON; every project counts as not trusted until it is fixed or removed'):format(
      store_path()
    ),
    vim.log.levels.WARN
  )
  return {}
end

local function key(root)
  return vim.fs.normalize(vim.uv.fs_realpath(root) or root)
end

--- 'trusted', 'untrusted' or nil (never answered) for the project at `root`.
function M.state(root)
  local value = read_store()[key(root)]
  return (value == 'trusted' or value == 'untrusted') and value or nil
end

--- Remember the user's answer for `root` ('trusted', 'untrusted', or nil to forget it).
function M.set(root, value)
  local data = read_store()
  data[key(root)] = value
  vim.fn.mkdir(vim.fs.dirname(store_path()), 'p')
  local tmp = store_path() .. '.tmp'
  local file = assert(io.open(tmp, 'w'))
  file:write(vim.json.encode(data))
  file:close()
  assert(vim.uv.fs_rename(tmp, store_path()))
  not_now[key(root)] = nil
end

-- The folders the server reads a project's config from: its git work tree's top down to `root`
-- (the server's worktree and directory, core/config/loader.py), farther first.
local function folders(root)
  local top = vim.fs.root(root, '.git') or root
  local out, dir = { root }, root
  while dir ~= top and #dir > #top do
    dir = vim.fs.dirname(dir)
    table.insert(out, 1, dir)
  end
  return out
end

--- The items of M.ITEMS that exist in the project at `root` (or above it, up to its git work
--- tree's top: named relative to `root` then).
function M.found(root)
  root = vim.fs.normalize(root)
  local out = {}
  for _, folder in ipairs(folders(root)) do
    for _, item in ipairs(M.ITEMS) do
      if vim.uv.fs_stat(folder .. '/' .. item) then
        table.insert(out, folder == root and item or vim.fn.fnamemodify(folder .. '/' .. item, ':~'))
      end
    end
  end
  return out
end

--- Whether the agent may use the project's own things: the user trusted it, or it holds none.
function M.trusted(root)
  return M.state(root) == 'trusted' or #M.found(root) == 0
end

--- Whether to ask about `root` by itself (the server started without its things).
function M.should_ask(root)
  return not M.trusted(root) and M.state(root) == nil and not not_now[key(root)] and asking ~= key(root)
end

local function title(root)
  local found = M.found(root)
  local has = #found > 0 and ('It has its own %s.'):format(table.concat(found, ', '))
    or 'It has no config of its own yet.'
  local server = vim.tbl_contains(found, '.venv/bin/agentls') and ' (its .venv/bin/agentls is the server)' or ''
  return (
    'agentls: trust %s? %s Trusted, they are used%s: their MCP servers and commands can run'
    .. ' programs. Untrusted, only your own config is used.'
  ):format(vim.fn.fnamemodify(root, ':~'), has, server)
end

--- Ask whether to trust `root` (vim.ui.select); `on_change()` runs when the answer changed what
--- the server may use (it needs a restart then). Opened by itself only while the user is not
--- typing (agentls.dialogs.gate); `now`: the user asked for it (:AgentlsTrust).
function M.ask(root, on_change, now)
  local id = key(root)
  asking = id
  if cancel_wait then -- one dialog: :AgentlsTrust while one waits for a pause opens it now
    cancel_wait()
    cancel_wait = nil
  end
  local function show()
    cancel_wait = nil
    local before = M.trusted(root)
    local ask = { prompt = title(root), kind = 'agentls.trust', format_item = tostring }
    vim.ui.select({ M.TRUST, M.NOT_NOW, M.NEVER }, ask, function(choice)
      asking = nil
      if choice == M.TRUST then
        M.set(root, 'trusted')
      elseif choice == M.NEVER then
        M.set(root, 'untrusted')
        require('agentls.ui.notify').after_dialog(
          'agentls: the project stays untrusted; :AgentlsTrust asks again',
          vim.log.levels.INFO
        )
      else
        not_now[id] = true
      end
      if M.trusted(root) ~= before then
        on_change()
      end
    end)
  end
  if now or gate.quiet() then
    return show()
  end
  -- No message meanwhile: one while the chat opens made Neovim wait for Enter, and that prompt
  -- would take the user's next key.
  cancel_wait = gate.when_quiet(show)
end

return M
