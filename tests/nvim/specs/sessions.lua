-- Two sessions: a turn in each, switching back through :AgentlsSessions (vim.ui.select), renaming,
-- forking (the copy opens) and deleting the fork (confirmed; the chat moves on, its buffer goes).
local T = dofile(os.getenv('AGENTLS_TEST_HELPERS'))
T.setup()

local picks = {} -- answers for vim.ui.select, by prompt: function(items) -> item
vim.ui.select = function(items, opts, on_choice)
  local pick = assert(picks[opts.prompt], 'unexpected dialog: ' .. opts.prompt)
  vim.schedule(function()
    on_choice(pick(items, opts))
  end)
end
vim.ui.input = function(opts, on_confirm)
  vim.schedule(function()
    on_confirm('Renamed first')
  end)
end

T.open()
local first = T.chat().session_id
T.send('first question')
T.idle(first)
T.wait(function()
  return T.text(T.transcript()):find('first answer', 1, true)
end, 'the first answer')

-- Renames the plugin did not ask for reach it as session.updated events: the title the agent gave
-- the session, then one made outside the plugin's pickers (a request on the same connection whose
-- answer nobody reads: what the plugin sees is what another client's rename would send it).
T.wait(function()
  return T.winbar():find('A title', 1, true)
end, "the agent's title in the winbar")
local lsp = require('agentls.server.client').get()
lsp:request('agent/session/update', { sessionID = first, title = 'Renamed elsewhere' }, function() end)
T.wait(function()
  return T.winbar():find('Renamed elsewhere', 1, true)
end, 'the outside rename in the winbar')
T.eq('Renamed elsewhere', require('agentls').state.sessions[first].title, 'the title in the state')

vim.cmd('AgentlsNew')
T.wait(function()
  return T.chat().session_id ~= first
end, 'a new session')
local second = T.chat().session_id
T.eq('', T.text(T.transcript()), 'the new transcript is empty')
T.send('second question')
T.idle(second)
T.wait(function()
  return T.text(T.transcript()):find('second answer', 1, true)
end, 'the second answer')

-- Switch back to the first session and rename it.
local action = 'Open'
picks['agentls sessions'] = function(items, opts)
  -- Both are titled "A title": the picker tells them apart (time to the second, the id's end).
  local shown = vim.tbl_map(opts.format_item, items)
  T.eq(#items, #vim.tbl_keys(vim.iter(shown):fold({}, function(seen, line)
    seen[line:gsub('^● ', '  ')] = true
    return seen
  end)), 'distinct picker lines: ' .. vim.inspect(shown))
  for i, s in ipairs(items) do
    T.ok(shown[i]:find(s.title, 1, true), 'the title in the picker')
    T.ok(shown[i]:find('%d%d:%d%d:%d%d'), 'the time to the second: ' .. shown[i])
    T.ok(shown[i]:find('#' .. s.id:sub(-6), 1, true), 'the end of the id: ' .. shown[i])
  end
  for _, s in ipairs(items) do
    if s.id == first then
      return s
    end
  end
end
local titles = {}
setmetatable(picks, { __index = function(_, prompt)
  table.insert(titles, prompt)
  return function()
    return action
  end
end })
vim.cmd('AgentlsSessions')
T.wait(function()
  return T.chat().session_id == first
end, 'the switch to the first session')
T.eq('agentls://' .. first, vim.api.nvim_buf_get_name(vim.api.nvim_win_get_buf(T.chat().win)), 'shown buffer')
local text = T.text(T.transcript())
T.ok(text:find('first question', 1, true) and not text:find('second answer', 1, true), 'first transcript:\n' .. text)

action = 'Rename'
vim.cmd('AgentlsSessions')
T.wait(function()
  return T.winbar():find('Renamed first', 1, true)
end, 'the new title in the winbar')

-- Fork the renamed session: the copy opens with the same transcript.
action = 'Fork'
vim.cmd('AgentlsSessions')
T.wait(function()
  local id = T.chat().session_id
  return id ~= first and id ~= second and T.transcript() and T.text(T.transcript()):find('first answer', 1, true)
end, 'the fork with the transcript')
local fork = T.chat().session_id
local fork_buf = T.transcript()
T.ok(T.text(fork_buf):find('## You\n\nfirst question', 1, true), 'the forked prompt:\n' .. T.text(fork_buf))

-- Delete the fork (confirmed): the chat moves to another session and the fork's buffer goes.
action = 'Delete'
picks['agentls sessions'] = function(items)
  for _, s in ipairs(items) do
    if s.id == fork then
      return s
    end
  end
  error('no fork in the picker')
end
vim.cmd('AgentlsSessions')
T.wait(function()
  local id = T.chat().session_id
  return id and id ~= fork and not vim.api.nvim_buf_is_valid(fork_buf)
end, 'the chat to leave the deleted fork')
local confirms = vim.tbl_filter(function(prompt)
  return vim.startswith(prompt, 'Delete "')
end, titles)
T.eq(1, #confirms, 'delete confirmations in ' .. vim.inspect(titles))
local listed
require('agentls.server.client').request('agent/session/list', {}, function(_, result)
  listed = result.sessions
end)
T.wait(function()
  return listed
end, 'the session list')
T.eq(2, #listed, 'sessions after the delete')
for _, s in ipairs(listed) do
  T.ok(s.id ~= fork, 'the fork is gone')
end
T.finish()
