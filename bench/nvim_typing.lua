-- Sourced by bench/nvim_typing.py in an interactive Neovim (tmux): a 5 ms repeating timer measures
-- how late the main loop lets it run, with the CPU this Neovim used meanwhile, and notes when the
-- turn ends; :BenchDump FILE writes both to FILE as JSON.
local uv = vim.uv
local period = 5
local ticks, ended_at = {}, nil
local function cpu()
  local r = uv.getrusage()
  return (r.utime.sec + r.utime.usec / 1e6 + r.stime.sec + r.stime.usec / 1e6) * 1000
end
local expected, last_cpu = uv.hrtime() / 1e6 + period, cpu()
local probe = uv.new_timer()
probe:start(period, period, vim.schedule_wrap(function()
  local now, c = uv.hrtime() / 1e6, cpu()
  table.insert(ticks, { now, now - expected, c - last_cpu })
  expected, last_cpu = now + period, c
end))
table.insert(require('agentls.server.client').event_handlers, function(e)
  if e.type == 'session.status' and e.properties.status.type == 'idle' then
    ended_at = uv.hrtime() / 1e6
  end
end)
vim.api.nvim_create_user_command('BenchDump', function(o)
  probe:stop()
  vim.fn.writefile({ vim.json.encode({ ticks = ticks, ended_at = ended_at }) }, o.args)
end, { nargs = 1 })
