-- Run by bench/nvim_review.py (nvim -l, headless, the real server): the agent rewrites big.py with
-- 200 changed lines; then, with a 5 ms timer measuring how late the main loop lets it run, the
-- review list of the 200 hunks is opened (`:AgentlsReview list`: the request, the signs in the
-- buffer, the quickfix list) and the :AgentlsReview menu is asked for. Writes JSON to $BENCH_OUT.
local T = dofile(os.getenv('AGENTLS_TEST_HELPERS'))
T.setup()
local uv = vim.uv
local signs = require('agentls.review.signs')

vim.cmd('edit big.py')
local big = vim.api.nvim_get_current_buf()
local session = T.open()
T.send('rewrite big.py')
T.idle(session, 60000)
T.wait(function()
  return #signs.in_buffer(big) == 200
end, 'the 200 signs', 60000)

local function probe()
  local ticks, expected = {}, uv.hrtime() / 1e6 + 5
  local timer = uv.new_timer()
  timer:start(5, 5, vim.schedule_wrap(function()
    local now = uv.hrtime() / 1e6
    table.insert(ticks, now - expected)
    expected = now + 5
  end))
  return function()
    timer:stop()
    timer:close()
    return math.max(0, unpack(ticks))
  end
end

-- Forget what the plugin knows, as a fresh Neovim would: the list comes from the server.
signs.pending = {}
signs.refresh(big)
assert(#signs.in_buffer(big) == 0)

local out = {}
local stop = probe()
local t0 = uv.hrtime()
vim.cmd('AgentlsReview list')
T.wait(function()
  return #vim.fn.getqflist() == 200 and #signs.in_buffer(big) == 200
end, 'the quickfix list and the signs', 10000)
out.list_ms = (uv.hrtime() - t0) / 1e6
vim.wait(200)
out.list_block_ms = stop()
vim.cmd('cclose')

local shown
vim.ui.select = function(items)
  shown = { at = uv.hrtime(), count = #items }
end
stop = probe()
t0 = uv.hrtime()
vim.cmd('AgentlsReview')
T.wait(function()
  return shown
end, 'the menu', 10000)
out.menu_ms = (shown.at - t0) / 1e6
vim.wait(200)
out.menu_block_ms = stop()
vim.fn.writefile({ vim.json.encode(out) }, os.getenv('BENCH_OUT'))
T.finish()
