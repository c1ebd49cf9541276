-- Settings changed in the running Neovim (setup() again with another `config`) reach the server, and
-- the chat follows its config.updated: the winbar shows the new default and the next prompt goes to
-- it, unless the user picked a model, which stays while the settings offer it. Which fake server
-- answered each prompt is checked by the Python side (test_settings_changed_in_neovim).
local T = dofile(os.getenv('AGENTLS_TEST_HELPERS'))
T.setup()

local warnings = T.notifications(T.at(vim.log.levels.WARN))
local pick
vim.ui.select = function(items, opts, on_choice)
  vim.schedule(function()
    on_choice(pick(items, opts))
  end)
end

local function settings(change)
  local cfg = vim.deepcopy(T.options.config)
  change(cfg)
  T.setup({ config = cfg })
end

local function winbar_shows(text)
  T.wait(function()
    return T.winbar():find(text, 1, true)
  end, 'the winbar to show ' .. text)
end

local function ask(prompt, answer)
  T.send(prompt)
  T.wait(function()
    return T.text(T.transcript()):find(answer, 1, true)
  end, 'the answer ' .. answer)
  T.idle(T.chat().session_id)
end

T.open()
winbar_shows('build · fake/m')
ask('one', 'fake one')

-- 1. A new default model in the settings: the session that was on the old default follows it.
settings(function(cfg)
  cfg.model = 'other/o'
end)
winbar_shows('build · other/o')
ask('two', 'other two')
T.ok(T.text(T.transcript()):find('## Agent · build · other/o', 1, true), 'the answer header names other/o')

-- 2. A model picked by the user stays when the default moves again.
pick = function(items)
  for _, item in ipairs(items) do
    if item.name == 'fake/m' and not item.follow then
      return item
    end
  end
end
vim.cmd('AgentlsModel')
T.wait(function()
  return T.chat().model == 'fake/m'
end, 'the pick')
settings(function(cfg)
  cfg.model = 'other/p'
end)
T.wait(function()
  local cfg = require('agentls').state.config
  return cfg and cfg.defaultModel == 'other/p'
end, 'the config.updated event')
winbar_shows('build · fake/m')
ask('three', 'fake three')

-- 3. Settings that no longer offer the picked model: the pick goes (the user is told), the default
-- applies again.
settings(function(cfg)
  cfg.model = 'other/o'
  cfg.provider.fake = nil
end)
T.wait(function()
  return T.chat().model == nil
end, 'the pick to go')
T.eq(1, #warnings, 'warnings: ' .. vim.inspect(warnings))
T.ok(warnings[1].msg:find('no longer offer the model fake/m', 1, true), 'the warning: ' .. warnings[1].msg)
winbar_shows('build · other/o')
ask('four', 'other four')
T.finish()
