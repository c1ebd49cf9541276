-- The server's `agent/editorQuery` (docs/protocol.md): the agent asks the language servers attached
-- in this Neovim (every client but agentls itself) for definitions, references, hover text, symbols,
-- and a file's diagnostics (`vim.diagnostic`); the refactoring queries (rename, code actions, format)
-- are answered by `agentls.server.refactor_queries`, with the helpers exported here.
--
-- Neovim answers a server's request from its handler's return value, so the handler waits for the
-- language servers (`request_sync`, at most `editor_query_timeout` ms, default 5000 — under the
-- server's own 10 s). A file no language server is attached to is an error naming it, which the agent
-- reads as the tool's error.
local M = {}

M.QUERIES = {
  'definition',
  'references',
  'hover',
  'documentSymbols',
  'workspaceSymbols',
  'diagnostics',
  'rename',
  'codeActions',
  'format',
}

local METHODS = {
  definition = 'textDocument/definition',
  references = 'textDocument/references',
  hover = 'textDocument/hover',
  documentSymbols = 'textDocument/documentSymbol',
  workspaceSymbols = 'workspace/symbol',
}
local SEVERITIES = { 'error', 'warning', 'information', 'hint' }

local HAS_011 = vim.fn.has('nvim-0.11') == 1
local function call(client, name, ...)
  if HAS_011 then
    return client[name](client, ...)
  end
  return client[name](...)
end

local function timeout_ms()
  return require('agentls.config').options.editor_query_timeout or 5000
end

local function own_id()
  return require('agentls.server.client').id
end

--- The language clients (not agentls) that can answer `method`, for `buf` or (nil) any.
local function clients_for(method, buf)
  local found = {}
  local opts = buf and { bufnr = buf } or {}
  for _, c in ipairs((vim.lsp.get_clients or vim.lsp.get_active_clients)(opts)) do
    if c.id ~= own_id() and call(c, 'supports_method', method, buf and { bufnr = buf } or nil) then
      table.insert(found, c)
    end
  end
  return found
end

local function buffer(uri)
  local buf = vim.uri_to_bufnr(uri)
  if not vim.api.nvim_buf_is_loaded(buf) then
    vim.fn.bufload(buf)
  end
  return buf
end

-- A column in `from` units of `line` as `to` units (via bytes).
local function convert(line, character, from, to)
  if from == to then
    return character
  end
  local byte = character
  if from ~= 'utf-8' then
    byte = HAS_011 and vim.str_byteindex(line, from, character, false)
      or vim.str_byteindex(line, character, from == 'utf-16')
  end
  if to == 'utf-8' then
    return byte
  end
  if HAS_011 then
    return vim.str_utfindex(line, to, byte, false)
  end
  local utf32, utf16 = vim.str_utfindex(line, byte)
  return to == 'utf-16' and utf16 or utf32
end

--- `result` from each language client that can answer `method` for the buffer of `params.uri`.
---@param params agentls.EditorQuery
local function ask_buffer(params, method, lsp_params)
  local buf = buffer(params.uri)
  local clients = clients_for(method, buf)
  if #clients == 0 then
    error(('no language server attached to %s answers %s'):format(vim.uri_to_fname(params.uri), method), 0)
  end
  local results = {}
  local agentls = require('agentls.server.client').get()
  for _, c in ipairs(clients) do
    local p = vim.deepcopy(lsp_params)
    if p.position then
      local line = vim.api.nvim_buf_get_lines(buf, p.position.line, p.position.line + 1, false)[1] or ''
      local from = agentls and agentls.offset_encoding or 'utf-16'
      p.position.character = convert(line, p.position.character, from, c.offset_encoding or 'utf-16')
    end
    local answer, err = call(c, 'request_sync', method, p, timeout_ms(), buf)
    if answer and answer.err then
      error(('%s: %s'):format(c.name, answer.err.message or vim.inspect(answer.err)), 0)
    elseif not answer then
      error(('%s did not answer %s: %s'):format(c.name, method, tostring(err)), 0)
    end
    table.insert(results, answer.result)
  end
  return results
end

local function location(loc)
  if loc.targetUri then
    return { uri = loc.targetUri, range = loc.targetSelectionRange or loc.targetRange }
  end
  local range = loc.range or { start = { line = 0, character = 0 }, ['end'] = { line = 0, character = 0 } }
  return { uri = loc.uri, range = range }
end

local function locations(results)
  local out = {}
  for _, result in ipairs(results) do
    if result ~= nil and result ~= vim.NIL then
      local list = vim.islist(result) and result or { result }
      for _, loc in ipairs(list) do
        table.insert(out, location(loc))
      end
    end
  end
  return out
end

local function marked(content)
  if type(content) == 'string' then
    return content
  elseif content.language then
    return ('```%s\n%s\n```'):format(content.language, content.value)
  end
  return content.value or ''
end

local function hover_text(results)
  local parts = {}
  for _, result in ipairs(results) do
    if result ~= nil and result ~= vim.NIL and result.contents then
      local contents = vim.islist(result.contents) and result.contents or { result.contents }
      for _, c in ipairs(contents) do
        local text = marked(c)
        if vim.trim(text) ~= '' then
          table.insert(parts, text)
        end
      end
    end
  end
  return #parts > 0 and { contents = table.concat(parts, '\n\n') } or vim.NIL
end

local function kind_name(kind)
  return (vim.lsp.protocol.SymbolKind[kind] or 'symbol'):lower()
end

local function symbols(results, uri)
  local out = {}
  local function visit(s, container)
    if s.location then -- SymbolInformation / WorkspaceSymbol
      table.insert(out, {
        name = s.name,
        kind = kind_name(s.kind),
        containerName = s.containerName or '',
        location = location(s.location),
      })
      return
    end
    table.insert(out, {
      name = s.name,
      kind = kind_name(s.kind),
      containerName = container,
      location = { uri = uri, range = s.selectionRange },
    })
    for _, child in ipairs(s.children or {}) do
      visit(child, s.name)
    end
  end
  for _, result in ipairs(results) do
    for _, s in ipairs(result ~= vim.NIL and result or {}) do
      visit(s, '')
    end
  end
  return out
end

local function workspace_symbols(text)
  local method = METHODS.workspaceSymbols
  local clients = clients_for(method, nil)
  if #clients == 0 then
    error('no language server answers ' .. method, 0)
  end
  local results = {}
  for _, c in ipairs(clients) do
    local answer, err = call(c, 'request_sync', method, { query = text or '' }, timeout_ms())
    if not answer or answer.err then
      error(('%s: %s'):format(c.name, answer and answer.err.message or tostring(err)), 0)
    end
    table.insert(results, answer.result)
  end
  return symbols(results, nil)
end

local function diagnostics(uri)
  local buf = buffer(uri)
  local own = own_id() and vim.lsp.diagnostic.get_namespace(own_id()) or nil
  local out = {}
  for _, d in ipairs(vim.diagnostic.get(buf)) do
    if d.namespace ~= own then
      table.insert(out, {
        range = {
          start = { line = d.lnum, character = d.col },
          ['end'] = { line = d.end_lnum or d.lnum, character = d.end_col or d.col },
        },
        severity = SEVERITIES[d.severity] or 'error',
        message = d.message,
        source = d.source or '',
      })
    end
  end
  return out
end

M.call, M.timeout_ms, M.clients_for, M.buffer, M.convert = call, timeout_ms, clients_for, buffer, convert

---@param params agentls.EditorQuery
local function answer(params)
  local q = params.query
  local refactor = require('agentls.server.refactor_queries').ANSWERS[q]
  if refactor then
    return refactor(params)
  end
  if q == 'definition' or q == 'references' then
    local p = { textDocument = { uri = params.uri }, position = params.position }
    if q == 'references' then
      p.context = { includeDeclaration = true }
    end
    return locations(ask_buffer(params, METHODS[q], p))
  elseif q == 'hover' then
    return hover_text(
      ask_buffer(params, METHODS.hover, { textDocument = { uri = params.uri }, position = params.position })
    )
  elseif q == 'documentSymbols' then
    return symbols(ask_buffer(params, METHODS.documentSymbols, { textDocument = { uri = params.uri } }), params.uri)
  elseif q == 'workspaceSymbols' then
    return workspace_symbols(params.text)
  elseif q == 'diagnostics' then
    return diagnostics(params.uri)
  end
  error('unknown editor query: ' .. tostring(q), 0)
end

--- The `agent/editorQuery` handler: `result` or `nil, error` (Neovim sends either back).
---@param params agentls.EditorQuery
function M.handler(_, params)
  local ok, result = pcall(answer, params)
  if not ok then
    return nil, vim.lsp.rpc_response_error(vim.lsp.protocol.ErrorCodes.InternalError, tostring(result))
  end
  return result -- an empty Lua table goes out as a JSON list, as the server wants
end

return M
