-- Options of the plugin: defaults, the user's overrides, and validation that falls back to the
-- default (with one warning) instead of failing, so a typo never leaves the user without a chat.
local M = {}

---@class agentls.Keymaps
---@field send_normal string|false   send the prompt (normal mode, prompt buffer)
---@field send_insert string|false   send the prompt (insert mode, prompt buffer)
---@field steer string|false         send into the running turn instead of queueing (prompt buffer, normal mode)
---@field stop_send string|false     abort the running turn and send the prompt (prompt buffer, normal mode)
---@field queue string|false         the queued prompts: edit or remove one (chat buffers, normal mode)
---@field abort string|false         abort the running turn (chat buffers)
---@field close string|false         close the chat (chat buffers, normal mode)
---@field new string|false           start a new session (chat buffers)
---@field sessions string|false      the session picker (chat buffers)
---@field dialog string|false        open the dialog that waits for an answer (chat buffers, normal mode)
---@field load_older string|false    load older messages into the transcript (chat buffers, normal mode)
---@field review_keep string|false   keep the agent's change under the cursor (buffers with pending changes)
---@field review_undo string|false   undo the agent's change under the cursor (buffers with pending changes)
---@field review_next string|false   the next pending agent change (buffers with pending changes)
---@field review_prev string|false   the previous pending agent change (buffers with pending changes)
---@field editor_context string|false drop or bring back the editor note (prompt buffer, normal mode)

M.defaults = {
  -- The server command; nil: `<project>/.venv/bin/agentls serve` (once the project is trusted,
  -- :AgentlsTrust), then `agentls serve` from $PATH, then the venv that :AgentlsInstall made
  -- (stdpath('data')/agentls/venv).
  cmd = nil,
  -- The Python (>= 3.11) :AgentlsInstall makes its venv with; nil: python3 (or python3.1x) on $PATH.
  python = nil,
  -- Where the server logs (passed as --log-file); false: stderr, which Neovim puts in its LSP log.
  log_file = vim.fn.stdpath('log') .. '/agentls-server.log',
  -- The project directory; nil: the current working directory.
  root_dir = nil,
  -- initializationOptions.config: the highest config layer (same keys as agentls.json).
  config = nil,
  -- 'split' (a vertical split on the right) or 'float'.
  layout = 'split',
  width = 0.4, -- of the editor's columns (split) or size (float), when < 1; columns when >= 1
  height = 0.8, -- float only
  prompt_height = 5,
  -- :Agentls leaves you typing in the prompt (insert mode), so the words typed right after it are
  -- text; false: the prompt opens in normal mode.
  start_in_insert = true,
  -- Open the most recent session with :Agentls (false: always a new session).
  resume = true,
  -- Show a diff of a proposed edit or write before asking for permission.
  diff_preview = true,
  -- Show the lines a pending agent change replaced above it, in the file's buffer (:AgentlsInlineDiff
  -- turns it off and on).
  inline_diff = true,
  -- Attach the project's file buffers so the agent reads unsaved text.
  attach_buffers = true,
  -- Forward every language server's diagnostics of those buffers (agent/diagnostics).
  forward_diagnostics = true,
  -- Let the agent ask your language servers (definition, references, hover, symbols, diagnostics).
  editor_queries = true,
  -- Next edits: when the agent's or your edit starts a pattern (a renamed identifier, a changed
  -- call), the small model's edit at each remaining site as the code action "Apply the agent's
  -- pattern here" (and inline completions where Neovim has them). Each is a small-model request.
  next_edits = false,
  -- Where the agent runs (initializationOptions.host): 'attach' or 'auto' share one live agent with
  -- your other editors, ACP clients and `agentls run` through the per-user agent host ('auto'
  -- starts it); 'never' in the server's own process; 'tcp://HOST:PORT' the host listening there
  -- (`agentls host serve --tcp`, the token in the server's AGENTLS_HOST_TOKEN[_FILE]); nil: the
  -- server's AGENTLS_HOST, else 'never'.
  host = nil,
  -- How long (ms) Neovim waits for your language servers to answer one such question.
  editor_query_timeout = 5000,
  -- Send the file, cursor line and selection of the last file window with each prompt, as a short
  -- note (a ✎ chip above the prompt; keymaps.editor_context drops it for one prompt).
  editor_context = true,
  -- Streaming text is written to the chat buffer at most once per this many milliseconds.
  coalesce_ms = 16,
  -- The chat shows a session's last this many messages; older ones load on request (0: all).
  last_messages = 100,
  -- The picker of sessions and queued prompts, which shows a preview: 'auto' (the first installed
  -- of telescope, fzf-lua, snacks, mini.pick), one of those names, or 'select' (vim.ui.select,
  -- which the other picks always use, so your UI plugin draws them).
  picker = 'auto',
  -- A plan the plan agent presents for review: 'buffer' (a Markdown buffer in a split, with
  -- :AgentlsPlanApprove / :AgentlsPlanComment / :AgentlsPlanRevise / :AgentlsPlanReject) or
  -- 'select' (vim.ui.select asks Approve / Revise / Reject, no buffer).
  plan_view = 'buffer',
  keymaps = {
    send_normal = '<CR>',
    send_insert = '<C-s>',
    steer = 'gs',
    stop_send = 'gS',
    queue = 'gQ', -- not gq: formatting a long prompt keeps working
    abort = '<C-c>',
    close = 'q',
    new = '<C-n>',
    sessions = '<C-o>',
    dialog = 'ga',
    load_older = 'gL',
    review_keep = '<localleader>k',
    review_undo = '<localleader>u',
    review_next = ']h',
    review_prev = '[h',
    editor_context = 'gC', -- drop (or bring back) the editor note of the prompt being written
  },
}

local types = {
  cmd = { 'table', 'nil' },
  python = { 'string', 'nil' },
  log_file = { 'string', 'boolean' },
  root_dir = { 'string', 'nil' },
  config = { 'table', 'nil' },
  layout = { 'string' },
  width = { 'number' },
  height = { 'number' },
  prompt_height = { 'number' },
  start_in_insert = { 'boolean' },
  resume = { 'boolean' },
  diff_preview = { 'boolean' },
  inline_diff = { 'boolean' },
  attach_buffers = { 'boolean' },
  editor_queries = { 'boolean' },
  next_edits = { 'boolean' },
  host = { 'string', 'nil' },
  editor_query_timeout = { 'number' },
  editor_context = { 'boolean' },
  forward_diagnostics = { 'boolean' },
  coalesce_ms = { 'number' },
  last_messages = { 'number' },
  picker = { 'string' },
  plan_view = { 'string' },
  keymaps = { 'table' },
}

local choices = {
  layout = { split = true, float = true },
  plan_view = { buffer = true, select = true },
  host = { never = true, auto = true, attach = true },
  picker = { auto = true, select = true, telescope = true, ['fzf-lua'] = true, snacks = true, ['mini.pick'] = true },
}

-- `host` also takes the address of a host over TCP (docs/host.md, "Remote"); the server checks it.
local function other_choice(key, value)
  return key == 'host' and value:match('^tcp://.+:%d+$') ~= nil
end

M.options = vim.deepcopy(M.defaults)

--- Merge `user` over the defaults; returns the options and the list of problems found.
---@param user table|nil
---@return table options, string[] problems
function M.resolve(user)
  local options = vim.deepcopy(M.defaults)
  local problems = {}
  for key, value in pairs(user or {}) do
    local allowed = types[key]
    if allowed == nil then
      table.insert(problems, ('unknown option %q (ignored)'):format(key))
    elseif not vim.tbl_contains(allowed, type(value)) then
      table.insert(
        problems,
        ('option %q must be %s, got %s (using the default)'):format(key, table.concat(allowed, ' or '), type(value))
      )
    elseif choices[key] and not choices[key][value] and not other_choice(key, value) then
      table.insert(
        problems,
        ('option %q must be one of %s, got %q (using the default)'):format(
          key,
          table.concat(vim.tbl_keys(choices[key]), ', ') .. (key == 'host' and ', tcp://HOST:PORT' or ''),
          value
        )
      )
    elseif key == 'keymaps' then
      for name, lhs in pairs(value) do
        if M.defaults.keymaps[name] == nil then
          table.insert(problems, ('unknown keymap %q (ignored)'):format(name))
        elseif lhs ~= false and type(lhs) ~= 'string' then
          table.insert(problems, ('keymap %q must be a string or false (using the default)'):format(name))
        else
          options.keymaps[name] = lhs
        end
      end
    else
      options[key] = value
    end
  end
  return options, problems
end

--- Apply the user's options (warning once about the ones that were ignored).
---@param user table|nil
function M.setup(user)
  local problems
  M.options, problems = M.resolve(user)
  if #problems > 0 then
    vim.notify('agentls: ' .. table.concat(problems, '; '), vim.log.levels.WARN)
  end
  M.problems = problems
end

--- The project directory the server is started in.
---@return string
function M.root()
  return vim.fs.normalize(M.options.root_dir or vim.fn.getcwd())
end

--- Why no server starts when the only one is the project's own, in a project not trusted.
M.UNTRUSTED_SERVER = "the project's .venv/bin/agentls runs once you trust the project (:AgentlsTrust)"

--- The server command: the configured one (if it is executable), the project's .venv (in a trusted
--- project), $PATH, then the managed venv of :AgentlsInstall.
---@return string[]|nil cmd, string|nil reason, string|nil short  (short: the reason in a few words)
function M.server_cmd()
  local cmd = M.options.cmd
  if cmd == nil then
    local venv = M.root() .. '/.venv/bin/agentls'
    -- The project's own program runs only in a project the user trusted (agentls.server.trust).
    local own = vim.fn.executable(venv) == 1
    if own and require('agentls.server.trust').trusted(M.root()) then
      cmd = { venv, 'serve' }
    elseif vim.fn.executable('agentls') == 1 then
      cmd = { 'agentls', 'serve' }
    elseif vim.fn.executable(require('agentls.server.install').bin()) == 1 then
      cmd = { require('agentls.server.install').bin(), 'serve' }
    elseif own then
      return nil, M.UNTRUSTED_SERVER, 'project not trusted, see :AgentlsTrust'
    else
      return nil,
        'agentls is not installed: no .venv/bin/agentls in the project, no agentls on $PATH, and no '
          .. ':AgentlsInstall venv',
        'not installed, see :AgentlsInstall'
    end
  else
    cmd = vim.deepcopy(cmd)
    if type(cmd[1]) ~= 'string' or vim.fn.executable(cmd[1]) ~= 1 then
      return nil, ('cmd %s is not executable'):format(vim.inspect(cmd[1]))
    end
  end
  if M.options.log_file and not vim.tbl_contains(cmd, '--log-file') then
    vim.list_extend(cmd, { '--log-file', M.options.log_file })
  end
  return cmd, nil
end

return M
