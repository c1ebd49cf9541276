-- The effort follows the model picked for the next prompts (:AgentlsModel), before any turn on it:
-- the session's last model ("fake/m") has no effort levels; "fake/thinking" has them. Picking it shows
-- its effort in the winbar, and a level set then is checked against its levels and reaches its request.
local T = dofile(os.getenv('AGENTLS_TEST_HELPERS'))
T.setup()
local errors = T.notifications(T.at(vim.log.levels.ERROR))

local session = T.open()
T.wait(function()
  return T.winbar():find('mode ask', 1, true)
end, 'the mode in the winbar: ' .. T.winbar())
T.send('hello')
T.idle(session)
T.ok(not T.winbar():find('effort', 1, true), 'no effort for a model without levels: ' .. T.winbar())

-- :AgentlsModel's picker is Neovim's own vim.ui.select; the user picks fake/thinking.
vim.ui.select = function(items, _, on_choice)
  for _, item in ipairs(items) do
    if item.name == 'fake/thinking' and not item.follow then
      return vim.schedule(function()
        on_choice(item)
      end)
    end
  end
  error('no fake/thinking in the model picker')
end
vim.cmd('AgentlsModel')
T.wait(function()
  return T.winbar():find('effort default', 1, true)
end, "the picked model's effort in the winbar: " .. T.winbar())

vim.cmd('AgentlsEffort high')
T.wait(function()
  return T.winbar():find('effort high', 1, true)
end, 'high in the winbar: ' .. T.winbar())
T.eq({}, errors, 'high is a level of the picked model')
T.send('think hard')
T.idle(session)
T.finish()
