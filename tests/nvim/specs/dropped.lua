-- A model the user picked (never a default), then taken out of the settings: the pick goes with a
-- warning naming the default, the winbar shows the default, and the next prompt of the session that
-- ran on the dropped model names the default (the server would go on with the session's model).
-- Which model answered is checked by the Python side (test_a_picked_model_the_settings_drop).
local T = dofile(os.getenv('AGENTLS_TEST_HELPERS'))
T.setup()

local warnings = T.notifications(T.at(vim.log.levels.WARN))
vim.ui.select = function(items, _, on_choice)
  vim.schedule(function()
    for _, item in ipairs(items) do
      if item.name == 'fake/m2' and not item.follow then
        return on_choice(item)
      end
    end
  end)
end

local session = T.open()
vim.cmd('AgentlsModel')
T.wait(function()
  return T.chat().model == 'fake/m2'
end, 'the pick')
T.send('one')
T.wait(function()
  return T.text(T.transcript()):find('answer one', 1, true)
end, 'the first answer')
T.idle(session)

local cfg = vim.deepcopy(T.options.config)
cfg.provider.fake.models.m2 = nil
T.setup({ config = cfg })
T.wait(function()
  return T.chat().model == nil
end, 'the pick to go')
T.eq({ 'agentls: the settings no longer offer the model fake/m2: the next prompts use build · fake/m' },
  vim.tbl_map(function(n)
    return n.msg
  end, warnings), 'the warning')
T.ok(T.winbar():find('│ build · fake/m$'), 'the winbar: ' .. T.winbar())

T.send('two')
T.wait(function()
  return T.text(T.transcript()):find('answer two', 1, true)
end, 'the second answer')
T.idle(session)
T.ok(T.text(T.transcript()):find('## Agent · build · fake/m\n\nanswer two', 1, true), T.text(T.transcript()))
T.finish()
