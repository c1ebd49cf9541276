-- Rebuilding a transcript view (agentls.chat.render) bounded by lines, not by messages (issue 29: no
-- block of the main loop over 50 ms while a long chat opens or loads older pages): the newest lines
-- at once, the older ones above them a chunk per turn of the loop; a page of older messages goes
-- above what is shown the same way.
local M = {}

local function renderer() -- (agentls.chat.render requires this module)
  return require('agentls.chat.render')
end

--- The lines a block's render takes in the buffer.
function M.size_of(render)
  local n = #render.lines
  return n == 0 and 0 or n + 1 -- a blank line after each visible block
end

--- A block's lines in the buffer: its render's, then a blank line (none for an empty render).
function M.block_lines(render)
  if #render.lines == 0 then
    return {}
  end
  local lines = vim.list_slice(render.lines)
  table.insert(lines, '')
  return lines
end

local size_of, block_lines = M.size_of, M.block_lines
local older_later, prepend_older -- (below)

--- A transcript written whole with at least this many lines gets its folds in a later turn.
M.FOLD_LATER_LINES = 500
--- A rebuilt transcript shows its newest blocks of about this many lines at once (more than a
--- screen), and the older ones above them about CHUNK_LINES at a time, a turn of the loop each: the
--- work of a turn is bounded by lines, whatever the number of messages (issue 29).
M.FIRST_LINES = 300
M.CHUNK_LINES = 1000

-- Where the blocks `wanted[1..last]` would be cut to leave about `lines` lines below the cut,
-- rendering the blocks below it into `made` (by key): the index of the first block below the cut
-- and the cut as `view.from` ({mid, skip}: that block is the skip+1-th of message mid); 1 and nil
-- when everything fits.
local function cut(wanted, last, lines, made)
  local count = 0
  for i = last, 1, -1 do
    local w, below = wanted[i], wanted[i + 1]
    if count >= lines and w.mid and below and below.mid then
      return i + 1, { mid = below.mid, skip = below.nth - 1 }
    end
    made[w.key] = w.make()
    count = count + size_of(made[w.key])
  end
  return 1, nil
end

-- Blocks for `wanted[first..last]`, their lines and starts from row 0.
local function blocks_of(wanted, first, last, made)
  local blocks, lines = {}, {}
  for i = first, last do
    local w = wanted[i]
    local render = made[w.key] or w.make()
    local block = { key = w.key, mid = w.mid, nth = w.nth, render = render, size = size_of(render) }
    block.start = #lines
    table.insert(blocks, block)
    vim.list_extend(lines, block_lines(render))
  end
  return blocks, lines
end

--- Rebuild the whole buffer of `view` (agentls.render's) from the state: its newest lines now, the
--- older ones in later turns.
function M.reset(view)
  view.generation = (view.generation or 0) + 1
  view.pending, view.pending_order = {}, {}
  vim.api.nvim_buf_clear_namespace(view.buf, renderer().ns, 0, -1)
  view.from = nil
  local wanted, made = view:wanted(), {}
  local first
  first, view.from = cut(wanted, #wanted, M.FIRST_LINES, made)
  local lines
  view.blocks, lines = blocks_of(wanted, first, #wanted, made)
  view.by_key = {}
  for _, block in ipairs(view.blocks) do
    view.by_key[block.key] = block
  end
  view.starts_valid = #view.blocks
  view.total = #lines
  -- 'foldexpr' runs for every line written: for a long write (thousands of lines) that is a
  -- block of its own. The windows showing a long one fold by hand for the write and by expression
  -- again in a later turn of the loop (issue 29: no block over 50 ms when a long chat opens).
  local unfolded = {}
  for _, win in ipairs(#lines >= M.FOLD_LATER_LINES and vim.fn.win_findbuf(view.buf) or {}) do
    if vim.wo[win].foldmethod == 'expr' then
      vim.wo[win].foldmethod = 'manual'
      table.insert(unfolded, win)
    end
  end
  view:write(function()
    vim.api.nvim_buf_set_lines(view.buf, 0, -1, false, lines)
  end)
  for _, block in ipairs(view.blocks) do
    view:decorate(block, block.start)
  end
  if #unfolded > 0 then
    vim.schedule(function()
      for _, win in ipairs(unfolded) do
        if vim.api.nvim_win_is_valid(win) and vim.api.nvim_win_get_buf(win) == view.buf then
          vim.wo[win].foldmethod = 'expr'
        end
      end
    end)
  end
  older_later(view)
end

-- The older blocks (above `view.from`) in a later turn of the loop (a timer: vim.schedule callbacks
-- run back to back), unless the buffer was rebuilt meanwhile.
older_later = function(view)
  if not view.from then
    return
  end
  local generation = view.generation
  vim.defer_fn(function()
    local current = view.generation == generation and renderer().views[view.buf] == view
    if current and vim.api.nvim_buf_is_valid(view.buf) then
      prepend_older(view)
    end
  end, 0)
end

--- Put about CHUNK_LINES lines of the blocks above `view.from` at the top of the buffer (windows
--- keep their place: Neovim moves their cursor and top line with the lines put above).
prepend_older = function(view)
  if not view.from then
    return
  end
  -- The blocks of the messages up to the first one shown (those below cost nothing here).
  local top
  for _, block in ipairs(view.blocks) do
    if block.mid then
      top = block.mid
      break
    end
  end
  view.from = nil
  local all = view:wanted(top)
  local last = #all -- the last block above those shown
  for i, w in ipairs(all) do
    if view.by_key[w.key] then
      last = i - 1
      break
    end
  end
  local made = {}
  local first
  first, view.from = cut(all, last, M.CHUNK_LINES, made)
  local added, lines = blocks_of(all, first, last, made)
  for _, block in ipairs(added) do
    view.by_key[block.key] = block
  end
  -- The layout before the write: 'foldexpr' runs during it, and reads the block starts.
  local count = #added
  view.blocks = vim.list_extend(added, view.blocks) -- (`added` is the whole list now)
  view.starts_valid = count
  view.total = view.total + #lines
  if #lines > 0 then
    -- (An empty buffer still has one line: the lines replace it.)
    local replace = view.total == #lines and -1 or 0
    view:write(function()
      vim.api.nvim_buf_set_lines(view.buf, 0, replace, false, lines)
    end)
  end
  for i = 1, count do
    view:decorate(added[i], added[i].start)
  end
  older_later(view)
end

--- Messages older than those shown were added to the state (agentls.chat.history): shown above them,
--- the first CHUNK_LINES at once.
function M.show_older(view)
  if view.from then
    return -- older blocks are on their way: these come with them
  end
  -- From the first message block shown on; the block above it (the offer of older messages) goes.
  local first = view.blocks[1]
  if first and not first.mid and first.key ~= renderer().TODOS_KEY then
    table.remove(view.blocks, 1)
    view.by_key[first.key] = nil
    view.starts_valid = 0
    view.total = view.total - first.size
    view:write(function()
      vim.api.nvim_buf_set_lines(view.buf, 0, first.size, false, {})
    end)
    first = view.blocks[1]
  end
  if not first or not first.mid then
    return view:reset()
  end
  view.from = { mid = first.mid, skip = first.nth - 1 }
  prepend_older(view)
end

return M
