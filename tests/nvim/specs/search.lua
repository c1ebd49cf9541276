-- :AgentlsSessions {query}: the sessions whose messages match, through vim.ui.select (so a picker
-- plugin gets them), each line with the words around the match; picking one opens it. A query the
-- server cannot parse is an error notice, not an empty picker.
local T = dofile(os.getenv('AGENTLS_TEST_HELPERS'))
T.setup()

local shown = {} -- what the pickers were given, by prompt
vim.ui.select = function(items, opts, on_choice)
  shown[opts.prompt] = vim.tbl_map(opts.format_item or tostring, items)
  vim.schedule(function()
    if opts.prompt:find('^agentls sessions matching') then
      on_choice(items[#items]) -- the oldest match: the first session
    elseif vim.tbl_contains(items, 'Open') then
      on_choice('Open')
    else
      on_choice(nil)
    end
  end)
end
local notices = {}
vim.notify = function(msg, level)
  table.insert(notices, { msg = msg, level = level })
end

T.open()
local first = T.chat().session_id
T.send('tell me about zebras')
T.idle(first)
T.wait(function()
  return T.text(T.transcript()):find('Zebras have stripes', 1, true)
end, 'the first answer')
vim.cmd('AgentlsNew')
T.wait(function()
  return T.chat().session_id ~= first
end, 'a new session')
local second = T.chat().session_id
T.send('and okapis?')
T.idle(second)
T.wait(function()
  return T.text(T.transcript()):find('Okapis have stripes too', 1, true)
end, 'the second answer')

vim.cmd('AgentlsSessions stripes')
local prompt = 'agentls sessions matching "stripes"'
T.wait(function()
  return shown[prompt] and T.chat().session_id == first
end, 'the picker of matches, then the first session open')
local lines = shown[prompt]
T.eq(2, #lines, 'two sessions match: ' .. vim.inspect(lines))
T.ok(lines[1]:find('Okapis have stripes too', 1, true), 'the newest first, with its snippet: ' .. lines[1])
T.ok(lines[2]:find('Zebras have stripes', 1, true), 'then the older: ' .. lines[2])

-- Typed text is searched as typed; FTS5 syntax only after fts:, where a bad query says why.
vim.cmd('AgentlsSessions fts:"unclosed')
T.wait(function()
  return #notices > 0
end, 'a notice for the bad query')
T.ok(notices[1].msg:find('not valid FTS5 query syntax', 1, true), 'the reason: ' .. notices[1].msg)
T.eq(vim.log.levels.ERROR, notices[1].level, 'an error')

vim.cmd('AgentlsSessions giraffes')
T.wait(function()
  return #notices > 1
end, 'a notice for no match')
T.eq('agentls: no session matches "giraffes"', notices[2].msg, 'no match said so')
T.finish()
