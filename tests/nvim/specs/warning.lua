-- agent.warning (here: no small model for the title) reaches the user as vim.notify at WARN, and the
-- turn itself goes on.
local T = dofile(os.getenv('AGENTLS_TEST_HELPERS'))
T.setup()

local warnings = T.notifications(T.at(vim.log.levels.WARN))

local session = T.open()
T.send('hi')
T.wait(function()
  return T.text(T.transcript()):find('Hello there.', 1, true)
end, 'the answer')
T.idle(session)
T.wait(function()
  return #warnings > 0
end, 'the warning')
T.eq(1, #warnings, 'one warning')
T.ok(warnings[1].msg:find('^agentls: no small model') and warnings[1].msg:find('nowhere', 1, true),
  'the warning names the missing small model: ' .. warnings[1].msg)
T.finish()
