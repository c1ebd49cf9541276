-- A new Neovim finds the sessions of the last one: :Agentls resumes the newest with its transcript,
-- and the picker opens the other one with its own. This user has the float layout.
local T = dofile(os.getenv('AGENTLS_TEST_HELPERS'))
T.setup({ layout = 'float', width = 0.8, height = 0.9, prompt_height = 4 })

local listed -- the sessions the picker offered, newest first
vim.ui.select = function(items, opts, on_choice)
  vim.schedule(function()
    if opts.prompt == 'agentls sessions' then
      listed = items
      for _, s in ipairs(items) do
        if s.id ~= T.chat().session_id then
          return on_choice(s)
        end
      end
      error('no other session in ' .. vim.inspect(items))
    end
    on_choice('Open')
  end)
end

-- What the chat asks the server while it resumes (the plugin's own request function, recorded).
local client = require('agentls.server.client')
local request, asked = client.request, {}
client.request = function(method, params, cb)
  table.insert(asked, { method, params })
  return request(method, params, cb)
end
vim.cmd('Agentls')
T.wait(function()
  return T.chat().session_id and T.transcript() and T.text(T.transcript()):find('answer', 1, true)
end, 'the newest session with its transcript')
local resumed = T.chat().session_id
client.request = request
-- The newest session and its last messages come in one request, not fetched again.
local lists, pages = {}, 0
for _, a in ipairs(asked) do
  if a[1] == 'agent/session/list' then
    table.insert(lists, a[2])
  elseif a[1] == 'agent/session/messages' then
    pages = pages + 1
  end
end
T.eq({ { limit = 1, messages = 100 } }, lists, 'the one list request')
T.eq(0, pages, 'no messages request: ' .. vim.inspect(asked))

-- Wait for the switch itself: the resumed transcript already says "answer".
vim.cmd('AgentlsSessions')
T.wait(function()
  local buf = T.chat().session_id ~= resumed and T.transcript()
  return buf and T.text(buf):find('answer', 1, true)
end, 'the other session with its transcript')
T.eq(resumed, listed[1].id, 'resumed the newest')
local titles = {}
for _, s in ipairs(listed) do
  titles[s.title] = T.text(T.chat().transcript(s.id))
end
T.ok(titles['Renamed first'], 'the renamed session in ' .. vim.inspect(vim.tbl_keys(titles)))
local text = titles['Renamed first']
T.ok(text:find('## You\n\nfirst question', 1, true) and text:find('first answer', 1, true),
  'the renamed transcript:\n' .. text)

-- The float layout: the transcript and, under it, the prompt float over the editor, centred.
local chat = T.chat()
local function layout()
  local t, p = vim.api.nvim_win_get_config(chat.win), vim.api.nvim_win_get_config(chat.prompt_win)
  return { t.relative, p.relative, t.width, p.width, t.height, p.height, t.col, p.col,
    p.row - t.row, vim.api.nvim_get_current_win() == chat.prompt_win }
end
local width, height = math.floor(vim.o.columns * 0.8), math.floor(vim.o.lines * 0.9)
local col = math.floor((vim.o.columns - width) / 2)
local expected = { 'editor', 'editor', width, width, height - 4 - 2, 4, col, col, height - 4, true }
T.eq(expected, layout(), 'the float windows')
T.eq(vim.api.nvim_win_get_buf(chat.win), T.transcript(), 'the transcript in the float')
T.ok(vim.wo[chat.win].winbar:find('agentls', 1, true), 'the winbar of the float')
-- q in the transcript closes both floats; :Agentls brings them back on the same session.
local session = chat.session_id
vim.api.nvim_set_current_win(chat.win)
vim.api.nvim_feedkeys('q', 'mx', false)
T.eq({ nil, nil }, { chat.win, chat.prompt_win }, 'the floats closed')
T.eq(1, #vim.api.nvim_list_wins(), 'windows after q')
vim.cmd('Agentls')
T.eq(expected, layout(), 'the floats again')
T.eq(session, chat.session_id, 'the same session')
T.finish()
