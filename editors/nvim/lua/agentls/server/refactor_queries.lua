-- The refactoring queries of `agent/editorQuery` (docs/protocol.md): rename, code actions (listed,
-- then one resolved, then its command run) and format, asked of the language servers attached in
-- this Neovim. Only the command of a code action changes anything here: everything else comes back
-- as text edits, which the server applies as the agent's own edit (permission, review, undo).
--
-- Positions go out in each language server's encoding and come back in agentls's own.
local Q = require('agentls.server.editor_queries')

local M = {}

local pending = {} -- token -> { client_id, command, bufnr }: a resolved action's command, until run
local next_token = 0

-- --- positions -------------------------------------------------------------------------------

--- A function that gives line `n` (0-based) of `uri`: the buffer's when it is loaded, else the disk's.
local function line_reader()
  local files = {}
  return function(uri, n)
    local buf = vim.uri_to_bufnr(uri)
    if vim.api.nvim_buf_is_loaded(buf) then
      return vim.api.nvim_buf_get_lines(buf, n, n + 1, false)[1] or ''
    end
    if files[uri] == nil then
      local ok, lines = pcall(vim.fn.readfile, vim.uri_to_fname(uri))
      files[uri] = ok and lines or {}
    end
    return files[uri][n + 1] or ''
  end
end

local function own_encoding()
  local agentls = require('agentls.server.client').get()
  return agentls and agentls.offset_encoding or 'utf-16'
end

local function position(line_of, uri, pos, from, to)
  return { line = pos.line, character = Q.convert(line_of(uri, pos.line), pos.character, from, to) }
end

local function range(line_of, uri, r, from, to)
  return { start = position(line_of, uri, r.start, from, to), ['end'] = position(line_of, uri, r['end'], from, to) }
end

-- --- workspace edits ---------------------------------------------------------------------------

--- An LSP WorkspaceEdit as `{changes = [{uri, edits}], fileOperations = [{kind, uri}]}` in agentls's encoding.
local function wire_edit(edit, encoding)
  local line_of, own = line_reader(), own_encoding()
  local out = { changes = {}, fileOperations = {} }
  local function add(uri, edits)
    local converted = {}
    for _, e in ipairs(edits or {}) do
      table.insert(converted, { range = range(line_of, uri, e.range, encoding, own), newText = e.newText })
    end
    table.insert(out.changes, { uri = uri, edits = converted })
  end
  if edit == nil or edit == vim.NIL then
    return out
  end
  if edit.documentChanges and edit.documentChanges ~= vim.NIL then
    for _, change in ipairs(edit.documentChanges) do
      if change.kind then -- create / rename / delete
        table.insert(out.fileOperations, { kind = change.kind, uri = change.uri or change.oldUri })
      else
        add(change.textDocument.uri, change.edits)
      end
    end
  elseif edit.changes and edit.changes ~= vim.NIL then
    for uri, edits in pairs(edit.changes) do
      add(uri, edits)
    end
  end
  return out
end

--- The first language client of `buf` that answers `method`, or an error naming the file.
local function client_for(method, params)
  local buf = Q.buffer(params.uri)
  local clients = Q.clients_for(method, buf)
  if #clients == 0 then
    error(('no language server attached to %s answers %s'):format(vim.uri_to_fname(params.uri), method), 0)
  end
  return clients[1], buf
end

local function request(c, method, p, buf)
  local answer, err = Q.call(c, 'request_sync', method, p, Q.timeout_ms(), buf)
  if answer and answer.err then
    error(('%s: %s'):format(c.name, answer.err.message or vim.inspect(answer.err)), 0)
  elseif not answer then
    error(('%s did not answer %s: %s'):format(c.name, method, tostring(err)), 0)
  end
  return answer.result
end

-- --- rename ----------------------------------------------------------------------------------

local function rename(params)
  local c, buf = client_for('textDocument/rename', params)
  local line_of = line_reader()
  local at = position(line_of, params.uri, params.position, own_encoding(), c.offset_encoding or 'utf-16')
  local doc = { textDocument = { uri = params.uri }, position = at }
  if Q.call(c, 'supports_method', 'textDocument/prepareRename', { bufnr = buf }) then
    local ready = request(c, 'textDocument/prepareRename', doc, buf)
    if ready == nil or ready == vim.NIL then
      error(('%s cannot rename the symbol there'):format(c.name), 0)
    end
  end
  local result = request(c, 'textDocument/rename', vim.tbl_extend('force', doc, { newName = params.newName }), buf)
  if result == nil or result == vim.NIL then
    return vim.NIL
  end
  return wire_edit(result, c.offset_encoding or 'utf-16')
end

-- --- code actions ------------------------------------------------------------------------------

--- The LSP diagnostics client `c` reported for `buf` on lines `first`..`last` (what quick fixes need).
local function diagnostics_for(c, buf, first, last)
  local out = {}
  for _, is_pull in ipairs({ false, true }) do
    local ns = vim.lsp.diagnostic.get_namespace(c.id, is_pull)
    for _, d in ipairs(vim.diagnostic.get(buf, { namespace = ns })) do
      local lsp = d.user_data and d.user_data.lsp
      if lsp and d.lnum <= last and (d.end_lnum or d.lnum) >= first then
        table.insert(out, lsp)
      end
    end
  end
  return out
end

--- Every language client's actions for the range: `{ {client, action}, … }`.
local function offered(params)
  local buf = Q.buffer(params.uri)
  local clients = Q.clients_for('textDocument/codeAction', buf)
  if #clients == 0 then
    error(('no language server attached to %s answers textDocument/codeAction'):format(vim.uri_to_fname(params.uri)), 0)
  end
  local line_of = line_reader()
  local found = {}
  for _, c in ipairs(clients) do
    local r = range(line_of, params.uri, params.range, own_encoding(), c.offset_encoding or 'utf-16')
    local context = {
      diagnostics = diagnostics_for(c, buf, params.range.start.line, params.range['end'].line),
      triggerKind = 1, -- invoked
    }
    if params.only and #params.only > 0 then
      context.only = params.only
    end
    local result =
      request(c, 'textDocument/codeAction', { textDocument = { uri = params.uri }, range = r, context = context }, buf)
    for _, action in ipairs(result ~= vim.NIL and result or {}) do
      table.insert(found, { client = c, action = action, buf = buf })
    end
  end
  return found
end

local function messages(action)
  local out = {}
  for _, d in ipairs(action.diagnostics or {}) do
    table.insert(out, d.message)
  end
  return out
end

local function listed(params)
  local out = {}
  for _, item in ipairs(offered(params)) do
    local a = item.action
    table.insert(out, {
      title = a.title,
      kind = type(a.kind) == 'string' and a.kind or '',
      isPreferred = a.isPreferred == true,
      disabled = type(a.disabled) == 'table' and a.disabled.reason or '',
      diagnostics = messages(a),
    })
  end
  return out
end

local function of_kind(kind, wanted)
  return type(kind) == 'string' and (kind == wanted or vim.startswith(kind, wanted .. '.'))
end

--- The action titled `params.title`, else the first (preferred first) of a kind in `params.only`.
local function chosen(params)
  local found = offered(params)
  if params.title ~= '' then
    for _, item in ipairs(found) do
      if item.action.title == params.title then
        return item
      end
    end
    return nil
  end
  local first
  for _, item in ipairs(found) do
    for _, wanted in ipairs(params.only or {}) do
      if of_kind(item.action.kind, wanted) and not item.action.disabled then
        if item.action.isPreferred then
          return item
        end
        first = first or item
      end
    end
  end
  return first
end

local function resolve(params)
  local item = chosen(params)
  if item == nil then
    return vim.NIL -- gone: the server tells the model to list the actions again
  end
  local c, action = item.client, item.action
  if type(action.command) == 'string' then -- a bare Command
    action = { title = action.title, command = action }
  elseif action.edit == nil and Q.call(c, 'supports_method', 'codeAction/resolve', { bufnr = item.buf }) then
    action = request(c, 'codeAction/resolve', action, item.buf)
  end
  local out = { title = action.title, kind = type(action.kind) == 'string' and action.kind or '' }
  if action.edit then
    out.edit = wire_edit(action.edit, c.offset_encoding or 'utf-16')
  end
  if type(action.command) == 'table' then
    next_token = next_token + 1
    out.token = tostring(next_token)
    out.command = { title = action.command.title or action.command.command, command = action.command.command }
    pending[out.token] = { client_id = c.id, command = action.command, bufnr = item.buf }
  end
  return out
end

--- Run a resolved action's command; the buffers it changed are saved and named (the step's review shows them).
local function run(params)
  local job = pending[params.token]
  pending[params.token] = nil
  if job == nil then
    error('no resolved code action has the token ' .. tostring(params.token), 0)
  end
  local c = vim.lsp.get_client_by_id(job.client_id)
  if c == nil then
    error('the language server that offered the action has stopped', 0)
  end
  local ticks = {}
  for _, buf in ipairs(vim.api.nvim_list_bufs()) do
    if vim.api.nvim_buf_is_loaded(buf) then
      ticks[buf] = vim.api.nvim_buf_get_changedtick(buf)
    end
  end
  local local_command = vim.lsp.commands[job.command.command]
  if local_command then
    local_command(job.command, { bufnr = job.bufnr, client_id = c.id })
  else
    -- The server's workspace/applyEdit arrives while this waits, and Neovim applies it.
    request(
      c,
      'workspace/executeCommand',
      { command = job.command.command, arguments = job.command.arguments },
      job.bufnr
    )
  end
  local changed = {}
  for buf, tick in pairs(ticks) do
    if vim.api.nvim_buf_is_valid(buf) and vim.api.nvim_buf_get_changedtick(buf) ~= tick then
      vim.api.nvim_buf_call(buf, function()
        vim.cmd('silent noautocmd update')
      end)
      table.insert(changed, vim.uri_from_bufnr(buf))
    end
  end
  return { changed = changed }
end

-- --- format ----------------------------------------------------------------------------------

local function format(params)
  local method = params.range and 'textDocument/rangeFormatting' or 'textDocument/formatting'
  local c, buf = client_for(method, params)
  local sw = vim.bo[buf].shiftwidth
  local options = { tabSize = sw > 0 and sw or vim.bo[buf].tabstop, insertSpaces = vim.bo[buf].expandtab }
  local p = { textDocument = { uri = params.uri }, options = options }
  local enc = c.offset_encoding or 'utf-16'
  if params.range then
    p.range = range(line_reader(), params.uri, params.range, own_encoding(), enc)
  end
  local edits = request(c, method, p, buf)
  local out = wire_edit({ changes = { [params.uri] = edits ~= vim.NIL and edits or {} } }, enc)
  return out.changes[1].edits
end

M.ANSWERS = { rename = rename, codeActions = listed, codeAction = resolve, runCommand = run, format = format }

return M
