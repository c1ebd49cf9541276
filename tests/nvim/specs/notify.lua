-- Telling the user: `User AgentlsTurnDone` / `User AgentlsDialog` always (with the session's id and
-- title), and a notification that a turn ended only while the chat is not on screen.
local T = dofile(os.getenv('AGENTLS_TEST_HELPERS'))
T.setup()

local fired = {}
vim.api.nvim_create_autocmd('User', {
  pattern = { 'AgentlsTurnDone', 'AgentlsDialog' },
  callback = function(ev)
    table.insert(fired, { pattern = ev.match, data = ev.data })
  end,
})
local said = T.notifications(function(msg)
  return msg:find('agentls: "', 1, true) ~= nil
end)
local asked = 0
vim.ui.select = function(_, opts, on_choice)
  asked = asked + 1
  T.eq('agentls.permission', opts.kind, 'a permission dialog')
  vim.schedule(function()
    on_choice('Allow once', 1)
  end)
end

local session = T.open()
T.send('hello')
T.idle(session)
T.wait(function()
  return #fired == 1
end, 'AgentlsTurnDone')
T.eq('AgentlsTurnDone', fired[1].pattern, 'the turn-done autocmd')
T.eq(session, fired[1].data.session_id, 'its session')
T.ok(type(fired[1].data.title) == 'string' and fired[1].data.title ~= '', 'a title')
T.eq({}, said, 'no notification while the chat shows the session')

-- The chat closed: the next turn's dialog and end are told.
T.chat().close()
T.chat().send('run it')
T.wait(function()
  return #fired == 3
end, 'the dialog and the end of the second turn: ' .. vim.inspect(fired))
T.idle(session)
T.eq('AgentlsDialog', fired[2].pattern, 'the dialog autocmd')
T.eq({ session, 'permission', 'bash' }, { fired[2].data.session_id, fired[2].data.kind, fired[2].data.permission },
  'what waits')
T.eq(1, asked, 'the dialog showed')
T.eq('AgentlsTurnDone', fired[3].pattern, 'the end')
local title = require('agentls').state.sessions[session].title
T.eq({ { msg = ('agentls: "%s" is done'):format(title), level = vim.log.levels.INFO } }, said, 'the notification')
T.finish()
