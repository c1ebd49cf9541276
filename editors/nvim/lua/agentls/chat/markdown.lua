-- Chat buffers (transcripts, prompts) become markdown in turns of the loop of their own.
--
-- Making a buffer markdown costs 20-50 ms (Vim's markdown syntax sources the HTML and CSS syntax),
-- too much for one turn of the loop (issue 29: no block over 50 ms while a chat opens). So each
-- buffer takes two turns of its own, one buffer after the other: its filetype (the filetype plugins
-- and the user's FileType autocommands, with the Syntax event held back), then its syntax (the
-- Syntax event the filetype would have sent; none when a FileType autocommand turned the syntax
-- off, e.g. for tree-sitter). The text shows plain meanwhile.
local M = {}

local ft_queue = {} ---@type {buf: integer, syntax: boolean|nil, after: fun()|nil}[]

-- A later turn of the loop: after the keys typed meanwhile, the timers due and a redraw (callbacks
-- queued with vim.schedule run back to back while nothing else is queued; a timer goes round the loop).
local function later(fn)
  vim.defer_fn(fn, 0)
end

local function set_filetype(buf)
  local ignore = vim.o.eventignore
  vim.o.eventignore = ignore == '' and 'Syntax' or (ignore .. ',Syntax')
  local ok, err = pcall(function()
    vim.bo[buf].filetype = 'markdown'
  end)
  vim.o.eventignore = ignore
  if not ok then
    error(err, 0)
  end
end

local function step(item)
  if not vim.api.nvim_buf_is_valid(item.buf) then
    return -- wiped meanwhile
  end
  if not item.syntax then
    if vim.bo[item.buf].filetype ~= 'markdown' then
      set_filetype(item.buf)
      -- Its syntax next, before the next buffer's filetype.
      table.insert(ft_queue, 1, { buf = item.buf, syntax = true, after = item.after })
    end
    return
  end
  local syntax = vim.bo[item.buf].syntax
  if syntax ~= '' and vim.b[item.buf].current_syntax == nil then
    vim.bo[item.buf].syntax = syntax -- setting it sends the Syntax event: the syntax loads
  end
  if item.after then
    item.after()
  end
end

local function next_filetype()
  local item = table.remove(ft_queue, 1)
  if not item then
    return
  end
  local ok, err = pcall(step, item)
  if #ft_queue > 0 then
    later(next_filetype)
  end
  if not ok then
    error(err, 0) -- (a FileType autocommand's error: the other buffers still get theirs)
  end
end

--- Make `buf` a markdown buffer in coming turns of the loop, then call `after`.
function M.queue(buf, after)
  table.insert(ft_queue, { buf = buf, after = after })
  if #ft_queue == 1 then
    later(next_filetype)
  end
end

return M
