-- When a modal dialog may open. Neovim's own vim.ui.select is inputlist(), which reads the
-- typeahead: keys the user typed a moment before a dialog appeared (a digit and Enter in insert
-- mode) would answer it. So a dialog opens by itself only while the user is not typing: normal mode,
-- no typeahead, no key for IDLE_MS. Otherwise it waits to be asked for (:AgentlsDialog), or for
-- such a pause. Keys typed after it opened were typed with it on screen (the caller redraws first).
local M = {}

--- How long the user must not have pressed a key before a dialog opens by itself.
M.IDLE_MS = 600

local ns = vim.api.nvim_create_namespace('agentls.gate')
local last_key = 0 -- ms (hrtime) of the last key the user typed

local function now()
  return vim.uv.hrtime() / 1e6
end

vim.on_key(function(_, typed)
  if typed and typed ~= '' then
    last_key = now()
  end
end, ns)

--- Whether a dialog may open now; else a word on why not ('typing', 'insert mode', …).
---@return boolean ok, string|nil why
function M.quiet()
  local mode = vim.api.nvim_get_mode()
  if mode.blocking then
    return false, 'waiting for a key'
  elseif mode.mode ~= 'n' then
    return false, (mode.mode:sub(1, 1) == 'i' and 'insert mode' or ('mode ' .. mode.mode))
  elseif vim.fn.getchar(1) ~= 0 then
    return false, 'typeahead'
  elseif now() - last_key < M.IDLE_MS then
    return false, 'typing'
  end
  return true, nil
end

--- How long ago the user last pressed a key (ms).
function M.idle_ms()
  return now() - last_key
end

--- Call `fn` once `ready()` holds (checked every `every_ms`; default: the user is quiet); returns
--- a function that cancels it.
function M.when_quiet(fn, every_ms, ready)
  ready = ready or M.quiet
  local timer = vim.uv.new_timer()
  local done = false
  local function stop()
    if not done then
      done = true
      timer:stop()
      timer:close()
    end
  end
  timer:start(
    every_ms or 200,
    every_ms or 200,
    vim.schedule_wrap(function()
      if not done and ready() then
        stop()
        fn()
      end
    end)
  )
  return stop
end

return M
