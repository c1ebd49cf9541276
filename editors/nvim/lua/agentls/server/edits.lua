-- `workspace/applyEdit` for a client that announced `savesEdits`: each edit is one undo step in
-- every buffer it touches, and every touched buffer is written before the answer, so the buffer
-- and the disk agree (no "changed since editing started" prompt). A buffer with unsaved user
-- changes keeps them under the agent's edit, and they are saved with it: the agent read them.
-- The handler answers synchronously, as Neovim requires of a server→client request.
local M = {}

M.applied = {} -- {label, buffers} of every applied edit, newest last (tests and :AgentlsDiff read it)

local function is_null(value)
  return value == nil or value == vim.NIL
end

-- Close the buffer's current undo block, so the next change starts a step of its own.
local function break_undo(buf)
  vim.api.nvim_buf_call(buf, function()
    vim.cmd('let &g:undolevels = &g:undolevels')
  end)
end

local function save(buf)
  local ok, err = pcall(vim.api.nvim_buf_call, buf, function()
    -- `write!`: the disk may hold an older copy of this text the agent already replaced.
    vim.cmd('silent keepalt lockmarks write!')
  end)
  return ok, err
end

local function text_edit(change, encoding, touched)
  local uri = change.textDocument.uri
  local buf = vim.uri_to_bufnr(uri)
  vim.fn.bufload(buf)
  local version = change.textDocument.version
  -- The version of the last didChange (typing bumps it; writing does not).
  local current = vim.lsp.util.buf_versions[buf]
  if not is_null(version) and version ~= current then
    local why = ('%s changed in the editor (version %d, the edit is for %d)'):format(
      vim.uri_to_fname(uri),
      current,
      version
    )
    return false, why, { buf = buf, version = current }
  end
  break_undo(buf)
  vim.lsp.util.apply_text_edits(change.edits, buf, encoding)
  break_undo(buf)
  touched[buf] = true
  return true
end

--- Apply `params.edit`; returns the ApplyWorkspaceEditResult.
function M.apply(params, encoding)
  local edit = params.edit or {}
  local touched = {}
  local changes = edit.documentChanges
  if is_null(changes) then
    changes = {}
    for uri, edits in pairs(is_null(edit.changes) and {} or edit.changes) do
      table.insert(changes, { textDocument = { uri = uri }, edits = edits })
    end
  end
  for _, change in ipairs(changes) do
    if change.kind then -- create, rename, delete: Neovim's own implementation
      local ok, err = pcall(vim.lsp.util.apply_workspace_edit, { documentChanges = { change } }, encoding)
      if not ok then
        return { applied = false, failureReason = tostring(err) }
      end
    else
      local ok, err, stale = text_edit(change, encoding, touched)
      if not ok then
        return { applied = false, failureReason = err }, stale
      end
    end
  end
  local buffers = {}
  for buf in pairs(touched) do
    local ok, err = save(buf)
    if not ok then
      return {
        applied = false,
        failureReason = ('could not save %s: %s'):format(vim.api.nvim_buf_get_name(buf), err),
      }
    end
    table.insert(buffers, buf)
  end
  table.insert(M.applied, { label = params.label, buffers = buffers })
  return { applied = true }
end

-- The version of each buffer's last didChange the server was sent (LspNotify fires once it is
-- out), by "client:buffer".
local sent = {} ---@type table<string, integer>
local waiting = {} ---@type table<string, {version: integer, resume: fun()}>

vim.api.nvim_create_autocmd('LspNotify', {
  group = vim.api.nvim_create_augroup('agentls_edits', { clear = true }),
  callback = function(ev)
    local data = ev.data or {}
    if data.method ~= 'textDocument/didChange' then
      return
    end
    local doc = data.params.textDocument
    local key = ('%d:%d'):format(data.client_id, vim.uri_to_bufnr(doc.uri))
    sent[key] = math.max(sent[key] or 0, doc.version)
    local wait = waiting[key]
    if wait and sent[key] >= wait.version then
      wait.resume()
    end
  end,
})

-- An edit for an older version of the buffer is refused; the server then re-applies the agent's
-- change on top of the newer text (or says it clashes). It must know that text first: the typing
-- that made the buffer newer may still wait in the didChange debounce. So the refusal waits (the
-- handler runs in a coroutine, as Neovim's own showMessageRequest handler does) until that didChange
-- is out, or WAIT_MS.
local WAIT_MS = 1000
local function after_changes_sent(client_id, stale)
  local key = ('%d:%d'):format(client_id, stale.buf)
  local co, is_main = coroutine.running()
  if not co or is_main or (sent[key] or 0) >= stale.version then
    return
  end
  local done = false
  local function resume()
    if not done then
      done = true
      waiting[key] = nil
      vim.schedule(function()
        coroutine.resume(co)
      end)
    end
  end
  waiting[key] = { version = stale.version, resume = resume }
  vim.defer_fn(resume, WAIT_MS)
  coroutine.yield()
end

--- The handler to register for `workspace/applyEdit`.
function M.handler(_, params, ctx)
  local client = vim.lsp.get_client_by_id(ctx.client_id)
  local encoding = client and client.offset_encoding or 'utf-16'
  local ok, result, stale = pcall(M.apply, params, encoding)
  if not ok then
    return { applied = false, failureReason = tostring(result) }
  end
  if stale then
    after_changes_sent(ctx.client_id, stale)
  end
  return result
end

return M
