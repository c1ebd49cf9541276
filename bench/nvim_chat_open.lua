-- Sourced by bench/nvim_chat_open.py in an interactive Neovim (tmux): a 5 ms repeating timer
-- measures how late the main loop lets it run. :BenchOpen SESSION shows that session in the chat and
-- notes when its transcript is rendered and drawn; :BenchDump FILE writes the figures as JSON.
local uv = vim.uv
local ticks, started, shown, reset_at, draw_ms, open_ms, loaded_ms = {}, nil, nil, nil, nil, nil, nil
local expected = uv.hrtime() / 1e6 + 5
local probe = uv.new_timer()
probe:start(5, 5, vim.schedule_wrap(function()
  local now = uv.hrtime() / 1e6
  table.insert(ticks, { now, now - expected })
  expected = now + 5
end))
vim.api.nvim_create_user_command('BenchOpen', function(o)
  local sid = o.args
  local unsubscribe
  unsubscribe = require('agentls').state:subscribe(function(kind, session_id)
    if kind == 'reset' and session_id == sid and not shown then
      unsubscribe()
      reset_at = uv.hrtime() / 1e6
      vim.schedule(function() -- (the loop's turn that rendered the messages has ended)
        loaded_ms = uv.hrtime() / 1e6 - reset_at
      end)
      vim.schedule(function() -- after the view wrote the buffer: draw it, as the user sees it
        local t = uv.hrtime() / 1e6
        vim.cmd('redraw')
        shown = uv.hrtime() / 1e6
        draw_ms = shown - t
        vim.g.bench_shown = 1
      end)
    end
  end)
  started = uv.hrtime() / 1e6
  require('agentls.chat').open({ session_id = sid })
  open_ms = uv.hrtime() / 1e6 - started
end, { nargs = 1 })
vim.api.nvim_create_user_command('BenchDump', function(o)
  probe:stop()
  local buf = require('agentls.chat').buffers[require('agentls.chat').session_id]
  vim.fn.writefile({ vim.json.encode({
    ticks = ticks, started = started, shown = shown, reset_at = reset_at, draw_ms = draw_ms, open_ms = open_ms,
    loaded_ms = loaded_ms, lines = vim.api.nvim_buf_line_count(buf),
  }) }, o.args)
end, { nargs = 1 })
