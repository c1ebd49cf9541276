-- Records the agent/event stream of a real turn (and the messages the server stores) as a fixture.
local T = dofile(os.getenv('AGENTLS_TEST_HELPERS'))
T.setup()

local events = {}
table.insert(require('agentls.server.client').event_handlers, function(event)
  table.insert(events, event)
end)
vim.ui.select = function(_, _, on_choice)
  vim.schedule(function()
    on_choice('Allow once')
  end)
end

vim.cmd('edit hello.py')
local session = T.open()
T.send(os.getenv('AGENTLS_RECORD_PROMPT'))
T.idle(session)
local messages
require('agentls.server.client').request('agent/session/messages', { sessionID = session }, function(err, result)
  assert(not err, vim.inspect(err))
  messages = result.messages
end)
T.wait(function()
  return messages
end, 'the stored messages')
local file = assert(io.open(os.getenv('AGENTLS_RECORD_TO'), 'w'))
file:write(vim.json.encode({ session = session, events = events, messages = messages }))
file:close()
T.finish()
