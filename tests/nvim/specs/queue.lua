-- Prompts sent while the agent works: Enter queues them (the winbar counts them), `gs` steers the
-- running turn, :AgentlsQueue removes one and edits another through vim.ui.select / vim.ui.input;
-- once the turn ends (a permission answered) the queued prompt runs as its own turn.
local T = dofile(os.getenv('AGENTLS_TEST_HELPERS'))
T.setup()

local asked, inputs = {}, {}
local allow = false -- the permission dialog is closed without a choice (it keeps waiting) until then
local answers = {
  function(items)
    return items[2] -- :AgentlsQueue → "drop me"
  end,
  function()
    return 'Remove'
  end,
  function(items)
    return items[1] -- :AgentlsQueue → "then one"
  end,
  function()
    return 'Edit'
  end,
}
vim.ui.select = function(items, opts, on_choice)
  table.insert(asked, { prompt = opts.prompt, kind = opts.kind, items = items, preview_item = opts.preview_item })
  local answer
  if opts.kind == 'agentls.permission' then
    answer = allow and 'Allow once' or nil
  else
    answer = table.remove(answers, 1)(items)
  end
  vim.schedule(function()
    on_choice(answer, answer and vim.fn.index(items, answer) + 1 or nil)
  end)
end
vim.ui.input = function(opts, on_confirm)
  table.insert(inputs, opts)
  vim.schedule(function()
    on_confirm('then one, edited')
  end)
end

local session
local function queued()
  local texts = {}
  for _, item in ipairs(require('agentls').state.queue[session] or {}) do
    table.insert(texts, item.parts[1].text)
  end
  return texts
end

session = T.open()
T.send('run it')
T.wait(function()
  return #asked == 1
end, 'the permission dialog')
T.send('then one')
T.send('drop me')
T.wait(function()
  return #queued() == 2
end, 'two queued prompts')
T.eq({ 'then one', 'drop me' }, queued(), 'the queue, next first')
T.ok(T.winbar():find('2 queued', 1, true), 'the winbar counts them: ' .. T.winbar())
-- `gs`: into the running turn, not the queue.
vim.api.nvim_set_current_win(T.chat().prompt_win)
vim.api.nvim_buf_set_lines(T.chat().prompt_buf, 0, -1, false, { 'steer this' })
vim.api.nvim_feedkeys('gs', 'mx', false)
T.wait(function()
  local user = require('agentls').state:last_user(session)
  return user and T.text(T.transcript()):find('steer this', 1, true)
end, 'the steering prompt in the transcript')
T.eq(2, #queued(), 'steering queued nothing')

vim.cmd('AgentlsQueue')
T.wait(function()
  return #queued() == 1
end, 'the removed prompt to leave the queue')
T.eq({ 'then one' }, queued(), 'what is left')
local picker = vim.iter(asked):find(function(a)
  return a.prompt == 'Queued prompts (next first)'
end)
T.ok(picker, 'the queue picker')
T.eq('agentls.queue', picker.kind, 'its kind, for the UI plugins')
-- Its preview (mini.pick's ui_select shows `preview_item`; the native pickers the same text).
T.eq({ 'drop me' }, picker.preview_item({ parts = { { type = 'text', text = 'drop me' } } }), 'the preview')
vim.cmd('AgentlsQueue')
T.wait(function()
  return queued()[1] == 'then one, edited'
end, 'the edited prompt')
T.eq('then one', inputs[1].default, 'the edit starts from the queued text')
T.ok(not T.text(T.transcript()):find('then one', 1, true), 'a queued prompt is not in the transcript yet')

allow = true
vim.cmd('AgentlsDialog')
T.wait(function()
  return T.text(T.transcript()):find('queued answer', 1, true)
end, "the queued prompt's own answer")
T.idle(session)
local text = T.text(T.transcript())
local done = text:find('Done.', 1, true)
local edited = text:find('then one, edited', 1, true)
local answer = text:find('queued answer', 1, true)
T.ok(done and edited and answer and done < edited and edited < answer, 'its own turn after the first:\n' .. text)
T.eq({}, queued(), 'the queue is empty')
T.ok(not T.winbar():find('queued', 1, true), 'the winbar no longer counts: ' .. T.winbar())
T.finish()
