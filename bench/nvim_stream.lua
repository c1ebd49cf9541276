-- Run by bench/nvim_stream.py inside a headless Neovim with the plugin: a long streamed answer
-- into the chat buffer, measuring buffer writes, the main loop's longest block (from a 5 ms
-- repeating timer's lateness) and the CPU time of this Neovim process.
--
-- A headless Neovim waiting in vim.wait() never redraws, where one with a UI redraws the chat window
-- after every write: the probe redraws on each tick (AGENTLS_BENCH_REDRAW=0 turns it off), so the
-- cost of drawing the transcript (highlighting, wrapping) is part of what is measured.
local T = dofile(os.getenv('AGENTLS_TEST_HELPERS'))
local mode = os.getenv('AGENTLS_BENCH_MODE') -- 'server' (real agentls serve) or 'local' (events injected)
local deltas = tonumber(os.getenv('AGENTLS_BENCH_DELTAS'))
local redraw = os.getenv('AGENTLS_BENCH_REDRAW') ~= '0'
T.setup()

local uv = vim.uv
local period = 5
local worst, ticks, expected = 0, 0, nil
local worst_at, t_start, over = nil, uv.hrtime() / 1e6, 0
local last_cpu, worst_cpu = 0, 0 -- CPU seconds at the last tick; CPU ms used during the worst block
local worst_tick_cpu = 0 -- the most CPU used between two ticks (ms): the longest block without descheduling
local events = 0
local probe = uv.new_timer()
local function cpu()
  local r = uv.getrusage()
  return r.utime.sec + r.utime.usec / 1e6 + r.stime.sec + r.stime.usec / 1e6
end

local chat = T.chat()
local function measure(run)
  expected = uv.hrtime() / 1e6 + period
  probe:start(period, period, vim.schedule_wrap(function()
    local now = uv.hrtime() / 1e6
    local c = cpu()
    if now - expected > worst then
      worst_at = { ms = now - t_start, events = events }
      worst_cpu = (c - last_cpu) * 1000
    end
    worst_tick_cpu = math.max(worst_tick_cpu, (c - last_cpu) * 1000)
    last_cpu = c
    worst = math.max(worst, now - expected)
    if now - expected > 50 then
      over = over + 1
    end
    expected = now + period
    ticks = ticks + 1
    if redraw then
      vim.cmd('redraw') -- what a UI does between events: its cost shows as the next tick's lateness
    end
  end))
  local cpu0, t0 = cpu(), uv.hrtime()
  last_cpu = cpu0
  t_start = t0 / 1e6
  run()
  local wall = (uv.hrtime() - t0) / 1e9
  -- Two more ticks: a block at the very end counts too, and so does the draw that follows it (a
  -- tick's redraw shows in the next tick).
  local seen = ticks
  vim.wait(1000, function()
    return ticks > seen + 1
  end, 1)
  probe:stop()
  return wall, cpu() - cpu0
end

vim.cmd('Agentls')
T.wait(function()
  return chat.session_id and chat.prompt_win
end, 'the chat to open', 60000)
local session = chat.session_id
local view = chat.views[session]
table.insert(require('agentls.server.client').event_handlers, function(e)
  if e.type == 'message.part.delta' then
    events = events + 1
  end
end)
local writes0 = view.writes

local wall, used = measure(function()
  if mode == 'server' then
    T.send('stream')
    T.idle(session, 300000)
  else
    -- Deltas arrive as the client would get them: in bursts between main-loop turns.
    local state = require('agentls').state
    local mid, pid = 'msg_zzzzzzzzzzzzzz', 'prt_zzzzzzzzzzzzzz'
    state:apply({ type = 'message.updated', properties = { info = { id = mid, sessionID = session, role = 'assistant' } } })
    state:apply({ type = 'message.part.updated', properties = { part = { id = pid, messageID = mid, sessionID = session, type = 'text', text = '' } } })
    local sent = 0
    local done = false
    local feeder = uv.new_timer()
    feeder:start(0, 1, vim.schedule_wrap(function()
      for _ = 1, 50 do
        if sent >= deltas then
          break
        end
        sent = sent + 1
        events = events + 1
        state:apply({ type = 'message.part.delta', properties = { sessionID = session, messageID = mid,
          partID = pid, field = 'text', delta = (sent % 40 == 0) and 'word\n' or 'word ' } })
      end
      if sent >= deltas and not done then
        done = true
        feeder:stop()
      end
    end))
    T.wait(function()
      return done
    end, 'the deltas', 300000)
    view:flush()
  end
end)

local lines = vim.api.nvim_buf_line_count(view.buf)
local result = {
  mode = mode, deltas_received = events, writes = view.writes - writes0, wall_s = wall, cpu_s = used,
  worst_block_ms = worst, worst_block_cpu_ms = worst_cpu, worst_tick_cpu_ms = worst_tick_cpu,
  worst_at_ms = worst_at and worst_at.ms,
  worst_at_events = worst_at and worst_at.events, probe_ticks = ticks, blocks_over_50ms = over, lines = lines,
  -- Whether the buffer's highlighting was paused for slow draws (agentls.chat.pacing; absent before it).
  paused = view.pacer and view.pacer.slow_draws > 0 and 1 or 0,
}

-- Switching back to the session later: its history comes from the server and is drawn at once.
if mode == 'server' then
  worst, over, worst_tick_cpu = 0, 0, 0
  local resets = 0
  local unsubscribe = require('agentls').state:subscribe(function(kind)
    resets = resets + (kind == 'reset' and 1 or 0)
  end)
  local reload_wall = measure(function()
    chat.load(session)
    T.wait(function()
      return resets > 0
    end, 'the history', 60000)
    vim.cmd('redraw')
  end)
  unsubscribe()
  T.eq(lines, vim.api.nvim_buf_line_count(view.buf), 'lines after the reload')
  result.reload_block_ms, result.reload_wall_s, result.reload_tick_cpu_ms = worst, reload_wall, worst_tick_cpu
end
print(vim.json.encode(result))
T.finish()
