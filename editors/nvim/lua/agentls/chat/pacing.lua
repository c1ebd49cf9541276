-- How often a transcript buffer is written while a turn streams, from what drawing it costs.
--
-- Neovim draws the chat window after every write, and drawing a long streamed answer is what costs:
-- Vim's markdown syntax re-reads the changed paragraph with each of its ~40 patterns on every draw
-- (~20 ms for a 100 KB one-line answer, or for ~30 long lines in a narrow window), tree-sitter
-- reparses it; and moving a following window's cursor to the end of a very long line makes Neovim
-- lay the whole line out again. The time each window of the buffer takes to draw is measured (a
-- decoration provider is called as Neovim starts each window and when it is done), so is each write,
-- and:
--   * streamed text is written at most once per 4 × (the last write + its draw), between
--     `coalesce_ms` and MAX_INTERVAL_MS: writing and drawing the chat take at most about a fifth of
--     the main loop;
--   * a draw slower than a frame (SLOW_DRAW_MS) while a turn streams pauses the highlighting of the
--     buffer's windows (Vim syntax or tree-sitter) until the turn ends; then it comes back, at the
--     cost of one slow draw, once the user pauses (not while they type the next prompt).
local gate = require('agentls.dialogs.gate')

local M = {}

M.SLOW_DRAW_MS = 16
M.MAX_INTERVAL_MS = 250
M.INTERVAL_PER_COST = 4
M.RESTORE_IDLE_MS = 1000

local Pacer = {}
Pacer.__index = Pacer

M.pacers = {} ---@type table<integer, table>  by buffer

local ns = vim.api.nvim_create_namespace('agentls.pacing')
local drawing = { buf = nil, since = 0 } -- the window being drawn, if it shows a transcript

local function done(now)
  local pacer = drawing.buf and M.pacers[drawing.buf]
  drawing.buf = nil
  if pacer then
    pacer:drew((now - drawing.since) / 1e6)
  end
end

local registered = false
local function register()
  if registered then
    return
  end
  registered = true
  vim.api.nvim_set_decoration_provider(ns, {
    on_win = function(_, _, buf)
      local now = vim.uv.hrtime()
      done(now)
      if M.pacers[buf] then
        drawing.buf, drawing.since = buf, now
      end
      return false -- no on_line calls: only the timing is wanted
    end,
    on_end = function()
      done(vim.uv.hrtime())
    end,
  })
end

--- The pacer of transcript buffer `buf`.
function M.new(buf)
  register()
  local pacer = setmetatable(
    { buf = buf, last_draw_ms = 0, last_write_ms = 0, paused = nil, streaming = false, slow_draws = 0 },
    Pacer
  )
  M.pacers[buf] = pacer
  return pacer
end

function Pacer:destroy()
  if self.cancel_restore then
    self.cancel_restore()
    self.cancel_restore = nil
  end
  M.pacers[self.buf] = nil
end

--- How long to wait before the next write of streamed text (ms): `coalesce_ms` while drawing is cheap.
function Pacer:interval(coalesce_ms)
  local cost = self.last_write_ms + self.last_draw_ms
  local paced = math.min(M.MAX_INTERVAL_MS, M.INTERVAL_PER_COST * cost)
  return math.floor(math.max(coalesce_ms, paced))
end

--- A window of the buffer took `ms` to draw. Called while Neovim draws: nothing may change here.
function Pacer:drew(ms)
  self.last_draw_ms = ms
  if ms > M.SLOW_DRAW_MS and self.streaming and not self.paused then
    self.slow_draws = self.slow_draws + 1
    vim.schedule(function()
      self:pause()
    end)
  end
end

--- Streamed text was written in `ms`.
function Pacer:wrote(ms)
  self.last_write_ms = ms
end

--- Streamed text arrived.
function Pacer:stream()
  self.streaming = true
  if self.cancel_restore then -- another turn streams: the highlighting stays paused
    self.cancel_restore()
    self.cancel_restore = nil
  end
end

--- The turn ended: the highlighting comes back once the user has not pressed a key for
--- RESTORE_IDLE_MS. Its first draw highlights the window's text from scratch (~0.1 s for a long
--- answer, bench/nvim_stream.py): done at once, it was a hitch in the typing of the next prompt.
function Pacer:ended()
  self.streaming = false
  if not self.paused or self.cancel_restore then
    return
  end
  self.cancel_restore = gate.when_quiet(
    function()
      self.cancel_restore = nil
      if not self.streaming then
        self:restore()
      end
    end,
    100,
    function()
      return gate.idle_ms() >= M.RESTORE_IDLE_MS
    end
  )
end

--- Bring the paused highlighting back.
function Pacer:restore()
  local paused = self.paused
  self.paused = nil
  if not paused or not vim.api.nvim_buf_is_valid(self.buf) then
    return
  end
  if paused == 'treesitter' then
    pcall(vim.treesitter.start, self.buf)
    return
  end
  for win in pairs(paused) do
    if vim.api.nvim_win_is_valid(win) and vim.api.nvim_win_get_buf(win) == self.buf then
      -- A window with its own syntax reverts to the buffer's when another buffer is loaded into it
      -- (:h :ownsyntax): load a scratch buffer and this one again, unseen, keeping the view.
      vim.api.nvim_win_call(win, function()
        local view = vim.fn.winsaveview()
        local scratch = vim.api.nvim_create_buf(false, true)
        local ignore = vim.o.eventignore
        vim.o.eventignore = 'all'
        pcall(vim.api.nvim_win_set_buf, win, scratch)
        pcall(vim.api.nvim_win_set_buf, win, self.buf)
        vim.o.eventignore = ignore
        vim.api.nvim_buf_delete(scratch, { force = true })
        vim.fn.winrestview(view)
      end)
    end
  end
end

--- Pause the buffer's highlighting: tree-sitter's, or Vim syntax in the windows that show it (the
--- syntax stays loaded: the windows get an empty syntax of their own, :h :ownsyntax).
function Pacer:pause()
  if self.paused or not self.streaming or not vim.api.nvim_buf_is_valid(self.buf) then
    return
  end
  local highlighter = vim.treesitter.highlighter
  if highlighter and highlighter.active and highlighter.active[self.buf] then
    self.paused = 'treesitter'
    vim.treesitter.stop(self.buf)
    return
  end
  local syntax = vim.bo[self.buf].syntax
  if syntax == '' or syntax:lower() == 'off' then
    return
  end
  self.paused = {}
  for _, win in ipairs(vim.fn.win_findbuf(self.buf)) do
    vim.api.nvim_win_call(win, function()
      vim.cmd('ownsyntax OFF')
    end)
    self.paused[win] = true
  end
end

return M
