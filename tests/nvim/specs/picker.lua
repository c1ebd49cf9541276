-- The pickers: which one draws a pick with a preview (`picker` option, by what is installed), and the
-- session picker through vim.ui.select (replaced here, as a UI plugin replaces it): its kind, its
-- lines, and the preview of a session (its last messages, asked from the server once).
local T = dofile(os.getenv('AGENTLS_TEST_HELPERS'))
T.setup()
local picker, config = require('agentls.ui.picker'), require('agentls.config')

-- Which picker, by the option and by what is installed (none is, here: `available` says).
local function installed(...)
  local set = {}
  for _, name in ipairs({ ... }) do
    set[name] = true
  end
  return function(name)
    return set[name] == true
  end
end
local cases = {
  { 'auto', installed(), nil },
  { 'auto', installed('mini.pick'), 'mini.pick' },
  { 'auto', installed('snacks', 'mini.pick'), 'snacks' },
  { 'auto', installed('telescope', 'fzf-lua', 'snacks', 'mini.pick'), 'telescope' },
  { 'auto', installed('fzf-lua', 'mini.pick'), 'fzf-lua' },
  { 'select', installed('telescope', 'mini.pick'), nil },
  { 'mini.pick', installed('telescope', 'mini.pick'), 'mini.pick' },
  { 'snacks', installed('telescope'), nil }, -- named but not installed: vim.ui.select
}
for _, case in ipairs(cases) do
  config.options.picker = case[1]
  T.eq(case[3], picker.choose(case[2]), ('picker = %q with %s'):format(case[1], vim.inspect(case[2])))
end
config.options.picker = 'auto'
T.eq(nil, picker.choose(), 'none of them installed here')
local _, problems = config.resolve({ picker = 'fzf' })
T.ok(problems[1] and problems[1]:find('picker', 1, true), 'an unknown picker is named: ' .. vim.inspect(problems))

-- Two sessions; the picker of sessions through vim.ui.select.
local first = T.open()
T.send('zebras?')
T.idle(first)
vim.cmd('AgentlsNew')
T.wait(function()
  return T.chat().session_id ~= first
end, 'a new session')
T.send('okapis?')
T.idle(T.chat().session_id)

local asked
vim.ui.select = function(items, opts, on_choice)
  asked = { items = items, opts = opts }
  if opts.kind == 'agentls.session' then
    vim.schedule(function()
      on_choice(nil) -- dismissed: nothing happens
    end)
  end
end
vim.cmd('AgentlsSessions')
T.wait(function()
  return asked
end, 'the session picker')
T.eq('agentls.session', asked.opts.kind, 'its kind')
T.eq(2, #asked.items, 'both sessions')
T.ok(asked.opts.format_item(asked.items[2]):find('#' .. first:sub(-6), 1, true), 'the line names the session')
local preview = asked.opts.preview_item
T.eq('…', preview(asked.items[2])[3], 'the placeholder while the server answers')
T.wait(function()
  return preview(asked.items[2])[3] == '## You'
end, 'the preview of the first session: ' .. vim.inspect(preview(asked.items[2])))
local lines = preview(asked.items[2])
T.ok(lines[1]:find('# ', 1, true) == 1 and vim.tbl_contains(lines, 'zebras?'), 'its prompt: ' .. vim.inspect(lines))
T.ok(vim.tbl_contains(lines, '## Agent'), 'and the answer: ' .. vim.inspect(lines))
T.finish()
