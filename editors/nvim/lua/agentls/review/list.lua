-- :AgentlsReview: the session's pending agent changes as a whole — keep or undo them all or file by
-- file (vim.ui.select, so a picker plugin draws it), or list them in the quickfix list.
local signs = require('agentls.review.signs')

local M = {}

local function chat()
  return require('agentls.chat')
end

local function plural(n, word)
  return ('%d %s%s'):format(n, word, n == 1 and '' or 's')
end

-- The line (1-based) a hunk stands on now: its sign's, when its buffer shows it, else its line in
-- the agent's version.
---@param hunk agentls.ReviewHunk
local function lnum(hunk)
  local buf = vim.fn.bufnr(signs.path(hunk))
  local first = buf ~= -1 and signs.rows(buf, hunk.id)
  return (first or hunk.afterStart or 0) + 1
end

---@param hunk agentls.ReviewHunk
---@return string
local function describe(hunk)
  local removed, added = #(hunk.before or {}), #(hunk.after or {})
  local by = signs.by(hunk)
  local who = by and (' (' .. by .. ')') or ''
  if hunk.kind ~= 'text' then
    return ('agent %s the file%s'):format(hunk.kind == 'binary' and 'changed' or hunk.kind, who)
  end
  local first = (hunk.after or {})[1] or (hunk.before or {})[1] or ''
  return ('agent change%s +%d -%d: %s'):format(who, added, removed, vim.trim((first:gsub('\r?\n$', ''))))
end

--- The quickfix items of `hunks` (by file, then line).
---@param hunks agentls.ReviewHunk[]
function M.items(hunks)
  local items = {}
  for _, hunk in ipairs(hunks) do
    table.insert(items, {
      filename = signs.path(hunk),
      lnum = lnum(hunk),
      col = 1,
      text = describe(hunk),
      user_data = { agentls_hunk = hunk.id },
    })
  end
  table.sort(items, function(a, b)
    if a.filename ~= b.filename then
      return a.filename < b.filename
    end
    return a.lnum < b.lnum
  end)
  return items
end

--- Fill the quickfix list with `hunks` and open it.
function M.quickfix(hunks)
  vim.fn.setqflist({}, ' ', {
    title = 'agentls review: ' .. plural(#hunks, 'pending change'),
    items = M.items(hunks),
  })
  vim.cmd('botright copen')
end

-- Group hunks by file: {file, uri, hunks}[] in file order.
local function by_file(hunks)
  local files, index = {}, {}
  for _, hunk in ipairs(hunks) do
    local entry = index[hunk.file]
    if not entry then
      entry = { file = hunk.file, uri = hunk.uri, hunks = {} }
      index[hunk.file] = entry
      table.insert(files, entry)
    end
    table.insert(entry.hunks, hunk)
  end
  table.sort(files, function(a, b)
    return a.file < b.file
  end)
  return files
end

local function file_menu(session_id, entry)
  local actions = { 'Open', 'Keep', 'Undo' }
  vim.ui.select(actions, {
    prompt = ('%s: %s'):format(entry.file, plural(#entry.hunks, 'pending change')),
    kind = 'agentls.review',
    format_item = tostring,
  }, function(action)
    if action == 'Open' then
      vim.cmd('edit ' .. vim.fn.fnameescape(signs.path(entry.hunks[1])))
      signs.refresh(vim.api.nvim_get_current_buf())
      vim.api.nvim_win_set_cursor(0, { math.min(lnum(entry.hunks[1]), vim.api.nvim_buf_line_count(0)), 0 })
    elseif action then
      signs.request(action:lower(), { sessionID = session_id, uri = entry.uri })
    end
  end)
end

--- The menu of `hunks` (the session's pending ones).
function M.menu(session_id, hunks)
  if #hunks == 0 then
    return vim.notify('agentls: no agent change waits for review', vim.log.levels.INFO)
  end
  local files = by_file(hunks)
  local items = {
    {
      label = ('Quickfix list of the %s'):format(plural(#hunks, 'change')),
      run = function()
        M.quickfix(hunks)
      end,
    },
    {
      label = ('Keep all %s'):format(plural(#hunks, 'change')),
      run = function()
        signs.request('keep', { sessionID = session_id })
      end,
    },
    {
      label = ('Undo all %s'):format(plural(#hunks, 'change')),
      run = function()
        signs.request('undo', { sessionID = session_id })
      end,
    },
  }
  for _, entry in ipairs(files) do
    table.insert(items, {
      label = ('%s (%s)'):format(entry.file, plural(#entry.hunks, 'change')),
      run = function()
        file_menu(session_id, entry)
      end,
    })
  end
  vim.ui.select(items, {
    prompt = ('agentls review: %s in %s'):format(plural(#hunks, 'change'), plural(#files, 'file')),
    kind = 'agentls.review',
    format_item = function(item)
      return item.label
    end,
  }, function(item)
    if item then
      item.run()
    end
  end)
end

--- :AgentlsReview [list|keep|undo] [file]: without arguments the menu; `list` the quickfix list;
--- `keep`/`undo` all the session's changes, or those of `file` (`%`: the current buffer's).
function M.command(args)
  local session_id = chat().session_id
  if not session_id then
    return vim.notify('agentls: open a session first (:Agentls)', vim.log.levels.WARN)
  end
  local action, file = args[1], args[2]
  if action and not vim.tbl_contains({ 'list', 'keep', 'undo' }, action) then
    return vim.notify(('agentls: :AgentlsReview takes list, keep or undo, not %q'):format(action), vim.log.levels.ERROR)
  end
  if action == 'keep' or action == 'undo' then
    local params = { sessionID = session_id }
    if file then
      params.uri = vim.uri_from_fname(vim.fn.fnamemodify(vim.fn.expand(file), ':p'))
    end
    return signs.request(action, params)
  end
  signs.load(session_id, function(hunks)
    if action == 'list' then
      if #hunks == 0 then
        return vim.notify('agentls: no agent change waits for review', vim.log.levels.INFO)
      end
      return M.quickfix(hunks)
    end
    M.menu(session_id, hunks)
  end)
end

return M
