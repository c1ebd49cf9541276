-- Diffs: the preview of a proposed edit before the permission answer, and the session's changes
-- file by file in a diff tab (:AgentlsDiff).
local M = {}

local function scratch(name, lines, filetype)
  local buf = vim.api.nvim_create_buf(false, true)
  vim.bo[buf].bufhidden = 'wipe'
  vim.api.nvim_buf_set_lines(buf, 0, -1, false, lines)
  vim.bo[buf].modifiable = false
  if filetype and filetype ~= '' then
    vim.bo[buf].filetype = filetype
  end
  pcall(vim.api.nvim_buf_set_name, buf, name)
  return buf
end

local function split_text(text)
  local lines = vim.split(text or '', '\n', { plain = true })
  if lines[#lines] == '' then
    table.remove(lines)
  end
  return lines
end

--- The current text of `path`: its buffer's (unsaved included) or the disk's.
function M.current_lines(path)
  local buf = vim.fn.bufnr(path)
  if buf ~= -1 and vim.api.nvim_buf_is_loaded(buf) then
    return vim.api.nvim_buf_get_lines(buf, 0, -1, false)
  end
  if vim.fn.filereadable(path) == 1 then
    return vim.fn.readfile(path)
  end
  return {}
end

-- Open a tab with `left` and `right` side by side in diff mode; returns the tab.
local function diff_tab(left, right)
  vim.cmd('tabnew')
  local tab = vim.api.nvim_get_current_tabpage()
  local empty = vim.api.nvim_get_current_buf()
  vim.api.nvim_win_set_buf(0, left)
  vim.cmd('diffthis')
  vim.cmd('rightbelow vsplit')
  vim.api.nvim_win_set_buf(0, right)
  vim.cmd('diffthis')
  if vim.api.nvim_buf_is_valid(empty) and empty ~= left and empty ~= right then
    pcall(vim.api.nvim_buf_delete, empty, { force = true })
  end
  return tab
end

--- Show `path` as it is now next to `after` (the proposed text), each side labelled ("now",
--- "proposed") in its winbar; returns a function closing it, and one giving the proposed side's text
--- when the user changed it (`editable`: the proposed side can be edited), else nil.
function M.preview(path, after, editable)
  local rel = vim.fs.relpath and vim.fs.relpath(vim.fn.getcwd(), path) or path
  local ft = vim.filetype.match({ filename = path }) or ''
  local stamp = vim.uv.hrtime()
  local left = scratch(('agentls://now/%d/%s'):format(stamp, rel), M.current_lines(path), ft)
  local right = scratch(('agentls://proposed/%d/%s'):format(stamp, rel), split_text(after), ft)
  vim.bo[right].modifiable = editable == true
  local previous = vim.api.nvim_get_current_tabpage()
  local tab = diff_tab(left, right)
  vim.t[tab].agentls_preview = path
  -- Which side is which, on each side.
  local wins = vim.api.nvim_tabpage_list_wins(tab)
  local labels = { [left] = 'now: ', [right] = editable and 'proposed (yours to edit): ' or 'proposed: ' }
  for _, win in ipairs(wins) do
    local label = labels[vim.api.nvim_win_get_buf(win)]
    if label then
      vim.wo[win].winbar = '%#AgentlsPaneTitle# ' .. label .. rel:gsub('%%', '%%%%') .. ' %*'
    end
  end
  local function close()
    if vim.api.nvim_tabpage_is_valid(tab) then
      local number = vim.api.nvim_tabpage_get_number(tab)
      if #vim.api.nvim_list_tabpages() > 1 then
        vim.cmd('tabclose ' .. number)
      end
    end
    if vim.api.nvim_tabpage_is_valid(previous) then
      vim.api.nvim_set_current_tabpage(previous)
    end
  end
  local function edited()
    if not editable or not vim.api.nvim_buf_is_valid(right) then
      return nil
    end
    local text = table.concat(vim.api.nvim_buf_get_lines(right, 0, -1, false), '\n')
    if after:sub(-1) == '\n' or after == '' then
      text = text .. '\n'
    end
    return text ~= after and text or nil
  end
  local function focus()
    for _, win in ipairs(vim.api.nvim_tabpage_is_valid(tab) and vim.api.nvim_tabpage_list_wins(tab) or {}) do
      if vim.api.nvim_win_get_buf(win) == right then
        vim.api.nvim_set_current_tabpage(tab)
        return vim.api.nvim_set_current_win(win)
      end
    end
  end
  return close, edited, focus
end

--- Undo a unified diff of one file on `new_lines`: the text before the change, or nil if it no
--- longer applies (the file changed since).
function M.reverse_patch(patch, new_lines)
  local old, pos = {}, 1 -- pos: the next line of new_lines to copy
  local in_hunk = false
  for _, line in ipairs(vim.split(patch, '\n', { plain = true })) do
    local new_start, new_count = line:match('^@@ %-[%d,]+ %+(%d+),?(%d*) @@')
    if new_start then
      in_hunk = true
      local first = tonumber(new_start)
      if new_count == '0' then
        first = first + 1 -- an empty new side names the line before the hunk
      end
      while pos < first do
        if new_lines[pos] == nil then
          return nil
        end
        table.insert(old, new_lines[pos])
        pos = pos + 1
      end
    elseif in_hunk and line ~= '' then
      local mark, text = line:sub(1, 1), line:sub(2)
      if mark == ' ' or mark == '+' then
        if new_lines[pos] ~= text then
          return nil
        end
        pos = pos + 1
      end
      if mark == ' ' or mark == '-' then
        table.insert(old, text)
      end
    end
  end
  while pos <= #new_lines do
    table.insert(old, new_lines[pos])
    pos = pos + 1
  end
  return old
end

--- Show `files` ({file, patch, additions, deletions}[]) in a diff tab; ]f and [f move between them.
---@param files agentls.DiffFile[]
---@param root string
function M.session_diff(files, root)
  if #files == 0 then
    vim.notify('agentls: the session changed no file', vim.log.levels.INFO)
    return
  end
  local index = 1
  local tab
  local function show()
    local f = files[index]
    local path = vim.startswith(f.file, '/') and f.file or (root .. '/' .. f.file)
    local now = M.current_lines(path)
    local before = M.reverse_patch(f.patch or '', now)
    local ft = vim.filetype.match({ filename = path }) or ''
    local stamp = vim.uv.hrtime()
    local wins = tab and vim.api.nvim_tabpage_list_wins(tab) or {}
    local label = ('%d/%d %s +%d -%d   ]f next  [f previous'):format(
      index,
      #files,
      f.file,
      f.additions or 0,
      f.deletions or 0
    )
    local left, right
    if before then
      left = scratch(('agentls://before/%d/%s'):format(stamp, f.file), before, ft)
      right = scratch(('agentls://after/%d/%s'):format(stamp, f.file), now, ft)
    else -- the file moved on since: show the patch itself
      left = scratch(('agentls://patch/%d/%s'):format(stamp, f.file), split_text(f.patch), 'diff')
    end
    if #wins == 0 then
      if right then
        tab = diff_tab(left, right)
      else
        vim.cmd('tabnew')
        tab = vim.api.nvim_get_current_tabpage()
        vim.api.nvim_win_set_buf(0, left)
      end
    else
      vim.cmd('diffoff!')
      vim.cmd('only')
      vim.api.nvim_win_set_buf(0, left)
      if right then
        vim.cmd('diffthis')
        vim.cmd('rightbelow vsplit')
        vim.api.nvim_win_set_buf(0, right)
        vim.cmd('diffthis')
      end
    end
    for _, win in ipairs(vim.api.nvim_tabpage_list_wins(tab)) do
      vim.wo[win].winbar = label
      local buf = vim.api.nvim_win_get_buf(win)
      vim.keymap.set('n', ']f', function()
        index = index % #files + 1
        show()
      end, { buffer = buf, desc = 'agentls: next changed file' })
      vim.keymap.set('n', '[f', function()
        index = (index - 2) % #files + 1
        show()
      end, { buffer = buf, desc = 'agentls: previous changed file' })
    end
  end
  show()
  return tab
end

return M
