-- Sourced by bench/nvim_chat_open.py in an interactive Neovim (tmux): a 5 ms repeating timer
-- measures how late the main loop lets it run. :BenchOpen SESSION shows that session in the chat and
-- notes when its transcript is rendered and drawn (:BenchCold SESSION: the same from `:Agentls` with no
-- server running); :BenchDump FILE writes the figures as JSON.
--
-- To say WHICH work blocks the loop, the probe also times (bench only, never the plugin):
-- every callback run through vim.schedule (named by the file:line of the function scheduled), every
-- redraw (a decoration provider's on_start .. on_end), and the JSON decoding of the LSP responses
-- is what is left between them (Neovim decodes in the pipe's read callback, outside any of these).
local uv = vim.uv
local SETTLE_MS = 1000
local ticks, started, shown, reset_at, draw_ms, open_ms, loaded_ms = {}, nil, nil, nil, nil, nil, nil
local older_at -- the first :BenchOlder
local slices = {} ---@type {[1]: number, [2]: number, [3]: string}[]  start, duration, name
local function now()
  return uv.hrtime() / 1e6
end
-- The main thread's CPU time: a slice's wall time on a loaded machine is also the other processes'.
local ffi = require('ffi')
pcall(ffi.cdef, 'typedef struct { long tv_sec; long tv_nsec; } bench_timespec; int clock_gettime(int, bench_timespec *);')
local ts = ffi.new('bench_timespec')
local function cpu()
  ffi.C.clock_gettime(3, ts) -- CLOCK_THREAD_CPUTIME_ID
  return tonumber(ts.tv_sec) * 1e3 + tonumber(ts.tv_nsec) / 1e6
end
local function name_of(fn, depth)
  local info = debug.getinfo(fn, 'S')
  local src = info.short_src:gsub('^.*/lua/', '')
  if src == 'vim/_editor.lua' and (depth or 0) < 3 then -- vim.schedule_wrap(f): name f
    for i = 1, 5 do -- (the runtime's bytecode has no upvalue names: the first function)
      local _, value = debug.getupvalue(fn, i)
      if type(value) == 'function' then
        return name_of(value, (depth or 0) + 1)
      end
    end
  end
  return ('%s:%d'):format(src, info.linedefined)
end
local schedule = vim.schedule
vim.schedule = function(fn) -- luacheck: ignore
  local name = name_of(fn)
  return schedule(function()
    local t, c = now(), cpu()
    fn()
    table.insert(slices, { t, now() - t, name, cpu() - c })
  end)
end
local draw_start, draw_cpu
vim.api.nvim_set_decoration_provider(vim.api.nvim_create_namespace('bench.draw'), {
  on_start = function()
    draw_start, draw_cpu = now(), cpu()
  end,
  on_end = function()
    if draw_start then
      table.insert(slices, { draw_start, now() - draw_start, 'redraw', cpu() - draw_cpu })
      draw_start = nil
    end
  end,
})
local expected = now() + 5
local probe = uv.new_timer()
probe:start(5, 5, function()
  schedule(function()
    local t = now()
    table.insert(ticks, { t, t - expected })
    expected = t + 5
  end)
end)
-- Show session `sid`: `open()` opens the chat on it; noted when its transcript is rendered and drawn.
local function bench_open(sid, open)
  local unsubscribe
  unsubscribe = require('agentls').state:subscribe(function(kind, session_id)
    if kind == 'reset' and session_id == sid and not shown then
      unsubscribe()
      reset_at = now()
      vim.schedule(function() -- (the loop's turn that rendered the messages has ended)
        loaded_ms = now() - reset_at
      end)
      vim.schedule(function() -- after the view wrote the buffer: draw it, as the user sees it
        local t = now()
        vim.cmd('redraw')
        shown = now()
        draw_ms = shown - t
        vim.g.bench_shown = 1
        vim.defer_fn(function() -- what the chat still does after it shows counts too
          vim.g.bench_settled = 1
        end, SETTLE_MS)
      end)
    end
  end)
  started = now()
  local c = cpu()
  open()
  open_ms = now() - started
  table.insert(slices, { started, open_ms, 'chat.open', cpu() - c })
end
vim.api.nvim_create_user_command('BenchOpen', function(o)
  bench_open(o.args, function()
    require('agentls.chat').open({ session_id = o.args })
  end)
end, { nargs = 1 })
-- :BenchCold SESSION: what `:Agentls` does with no server running: start it, then show the newest
-- session (SESSION, the only one).
vim.api.nvim_create_user_command('BenchCold', function(o)
  bench_open(o.args, function()
    require('agentls').open()
  end)
end, { nargs = 1 })
-- :BenchOlder: load the page before the first message shown (what `gL` does).
vim.api.nvim_create_user_command('BenchOlder', function()
  older_at = older_at or now()
  require('agentls.chat.history').load_older(require('agentls.chat').session_id)
end, {})
vim.api.nvim_create_user_command('BenchDump', function(o)
  probe:stop()
  local buf = require('agentls.chat').buffers[require('agentls.chat').session_id]
  vim.fn.writefile({ vim.json.encode({
    ticks = ticks, started = started, shown = shown, reset_at = reset_at, draw_ms = draw_ms, open_ms = open_ms,
    loaded_ms = loaded_ms, lines = vim.api.nvim_buf_line_count(buf), slices = slices, older_at = older_at,
    dumped_at = now(),
  }) }, o.args)
end, { nargs = 1 })
