-- Two sessions at once, each in its own chat (the main one and :AgentlsChat new in a tab), both
-- waiting on a permission dialog at the same time: each dialog shows in its own session's chat,
-- the one of the session not on screen waits with a notice and :AgentlsDialog goes there; each
-- transcript, winbar and answer stays with its session.
local T = dofile(os.getenv('AGENTLS_TEST_HELPERS'))
T.setup()
local chats = require('agentls.chat.tabs')
local state = require('agentls').state

local function here()
  local buf = vim.api.nvim_get_current_buf()
  return chats.session_of(buf) or (buf == T.chat().prompt_buf and T.chat().session_id) or nil
end

local asked = {}
vim.ui.select = function(items, opts, on_choice)
  table.insert(asked, { prompt = opts.prompt, screen = here(), on_choice = on_choice, items = items })
end
local said = T.notifications(T.at(vim.log.levels.WARN))

local function busy(sid)
  return (state.status[sid] or {}).type == 'busy'
end

local a = T.open()
T.send('task alpha')
T.wait(function()
  return #asked == 1
end, "alpha's dialog")
T.eq(a, asked[1].screen, "alpha's dialog in alpha's chat")
asked[1].on_choice(nil) -- dismissed: it waits

-- A second chat, in a tab of its own.
vim.cmd('AgentlsChat new')
T.wait(function()
  return next(chats.prompts) ~= nil and here() and here() ~= a
end, 'the second chat')
local b = here()
T.eq(2, #vim.api.nvim_list_tabpages(), 'a tab of its own')
vim.api.nvim_buf_set_lines(0, 0, -1, false, { 'task beta' })
vim.api.nvim_feedkeys(vim.keycode('<CR>'), 'mx', false)
T.wait(function()
  return #asked == 2
end, "beta's dialog in beta's chat")
T.eq(b, asked[2].screen, "beta's dialog shown in beta's chat")
T.ok(asked[2].prompt:find('echo beta', 1, true), 'about beta: ' .. asked[2].prompt)
T.ok(busy(a) and busy(b), 'both sessions work at once')
T.ok(state.transcripts[b] and not vim.inspect(state.transcripts[b]):find('alpha', 1, true), 'nothing of alpha in beta')

-- The winbar of each chat says its own session and status; beta's says alpha waits too.
local function bar(win)
  return vim.api.nvim_eval_statusline(vim.wo[win].winbar, { winid = win, use_winbar = true, maxwidth = 400 }).str
end
local b_win = vim.fn.win_findbuf(T.chat().buffers[b])[1]
local a_win = T.chat().win

asked[2].on_choice('Allow once')
T.idle(b)
-- Each chat's winbar: its own session's status.
T.ok(bar(b_win):find('│ idle', 1, true), "beta's winbar: " .. bar(b_win))
T.ok(bar(a_win):find('│ busy', 1, true), "alpha's winbar: " .. bar(a_win))
-- Alpha's dialog waits with a notice (the user looks at beta's chat), not on screen.
T.wait(function()
  for _, n in ipairs(said) do
    if n.msg:find(':AgentlsDialog takes you there', 1, true) then
      return true
    end
  end
end, 'the notice of alpha: ' .. vim.inspect(said))
T.eq(2, #asked, 'alpha did not pop up in beta')
T.ok(bar(b_win):find('permission: bash of', 1, true), "beta's winbar says another session waits: " .. bar(b_win))
vim.cmd('AgentlsDialog')
T.eq(3, #asked, "alpha's dialog")
T.eq(a, asked[3].screen, 'shown in alpha\'s chat: :AgentlsDialog went there')
T.eq(1, vim.api.nvim_tabpage_get_number(0), 'the first tab')
T.ok(asked[3].prompt:find('echo alpha', 1, true), 'about alpha: ' .. asked[3].prompt)
asked[3].on_choice('Allow once')
T.idle(a)

local ta, tb = T.text(T.chat().buffers[a]), T.text(T.chat().buffers[b])
T.ok(ta:find('answer for alpha', 1, true) and not ta:find('beta', 1, true), 'alpha:\n' .. ta)
T.ok(tb:find('answer for beta', 1, true) and not tb:find('alpha', 1, true), 'beta:\n' .. tb)
T.finish()
