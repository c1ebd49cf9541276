-- Slash commands in the chat's prompt: a `/` typed at the start of the prompt opens a menu of the
-- server's commands (`agent/commands`), and a prompt `/name args` naming one of them runs it
-- (`agent/session/command`) instead of being sent as text.
local client = require('agentls.server.client')

local M = {}

M.list = nil -- the server's commands as last fetched (name → command)

--- Fetch the commands; `done(list)` gets them (also when the request failed: the old list).
function M.fetch(done)
  client.request('agent/commands', {}, function(err, result)
    if not err and result then
      local by_name = {}
      for _, command in ipairs(result.commands or {}) do
        by_name[command.name] = command
      end
      M.list = by_name
      for _, problem in ipairs(result.errors or {}) do
        vim.notify('agentls: command file skipped: ' .. problem, vim.log.levels.WARN)
      end
    end
    if done then
      done(M.list)
    end
  end)
end

-- How the menu labels each kind of command, and in which order it lists them.
local KIND = { builtin = 'built-in', user = 'user', mcp = 'mcp' }
local RANK = { builtin = 0, user = 1, mcp = 2 }

--- The menu items for the commands: built-ins, the user's, then MCP servers' prompts (as the server
--- orders them).
local function items(list)
  local out = {}
  for name, command in pairs(list or {}) do
    local menu = command.hint ~= '' and command.hint or nil
    table.insert(out, {
      word = '/' .. name .. ' ',
      abbr = '/' .. name,
      menu = menu,
      info = command.description,
      kind = KIND[command.kind] or command.kind,
      rank = RANK[command.kind] or 1,
    })
  end
  table.sort(out, function(a, b)
    if a.rank ~= b.rank then
      return a.rank < b.rank
    end
    return a.abbr < b.abbr
  end)
  for _, item in ipairs(out) do
    item.rank = nil
    item.menu = item.menu and (item.info .. '  ' .. item.menu) or item.info
  end
  return out
end

--- Open the menu in `buf` if the cursor is still in a `/word` at the prompt's start.
local function show(buf)
  if vim.api.nvim_get_current_buf() ~= buf or vim.api.nvim_get_mode().mode ~= 'i' then
    return
  end
  local row, col = unpack(vim.api.nvim_win_get_cursor(0))
  local before = vim.api.nvim_get_current_line():sub(1, col)
  if row ~= 1 or not before:match('^/%S*$') then
    return
  end
  vim.fn.complete(1, items(M.list))
end

--- Set up the `/` menu in the prompt buffer `buf`.
function M.completion(buf)
  M.fetch()
  vim.keymap.set('i', '/', function()
    local row, col = unpack(vim.api.nvim_win_get_cursor(0))
    local before = vim.api.nvim_get_current_line():sub(1, col)
    if row == 1 and before:match('^%s*$') then
      -- Fetched again each time: a command file added meanwhile shows up.
      M.fetch(function()
        show(buf)
      end)
    end
    return '/'
  end, { buffer = buf, expr = true, desc = 'agentls: slash commands' })
end

--- The command and its arguments when `text` is `/name args` and the server has `name`, else nil.
function M.parse(text)
  local name, arguments = text:match('^%s*/([%w_:%.%-]+)%s*(.-)%s*$')
  if name and M.list and M.list[name] then
    return name, arguments
  end
  return nil
end

--- What a finished command did, for the user (a turn's answer shows in the transcript by itself).
function M.describe(name, result)
  local revert = result and result.revert
  if type(revert) ~= 'table' then
    return nil
  end
  local done = name == 'undo' and 'undid the last turn' or 'brought back what /undo took away'
  local files = {}
  for _, path in ipairs(revert.restored or {}) do
    table.insert(files, path)
  end
  for _, path in ipairs(revert.removed or {}) do
    table.insert(files, path)
  end
  if #files > 0 then
    done = done .. ' (files: ' .. table.concat(files, ', ') .. ')'
  end
  return 'agentls: ' .. done
end

return M
