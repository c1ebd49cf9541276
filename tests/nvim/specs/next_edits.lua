-- The plugin's next_edits option (AGENTLS_TEST_NEXT_EDITS=1 or 0): main.py is open; the agent
-- renames send()'s parameter in util.py. On: the server was told (it announces inline
-- completions), and vim.lsp.buf.code_action() at main.py's other call offers "Apply the agent's
-- pattern here", which applies the small model's edit in one undo step and joins the agent's
-- review. Off: nothing announced, no such action. What it saw goes to AGENTLS_TEST_OUT as JSON.
local T = dofile(os.getenv('AGENTLS_TEST_HELPERS'))
local on = os.getenv('AGENTLS_TEST_NEXT_EDITS') == '1'
T.setup({ next_edits = on })

vim.cmd('edit main.py')
local main = vim.api.nvim_get_current_buf()
local session = T.open()
local client = require('agentls.server.client').get()
T.wait(function()
  return vim.lsp.buf_is_attached(main, client.id)
end, 'main.py attached')
local out = { announced = client.server_capabilities.inlineCompletionProvider ~= nil }

T.send('rename msg to text')
T.idle(session)
T.wait(function()
  return vim.fn.readfile('util.py')[1] == 'def send(text, loud=False):'
end, "the agent's rename in util.py")

local function actions()
  local params = vim.lsp.util.make_range_params(0, client.offset_encoding)
  params.context = { diagnostics = {} }
  local answer = client:request_sync('textDocument/codeAction', params, 10000)
  local titles = {}
  for _, action in ipairs(answer and answer.result or {}) do
    table.insert(titles, action.title)
  end
  return titles
end

vim.api.nvim_set_current_buf(main)
vim.api.nvim_win_set_cursor(0, { 4, 0 }) -- send(msg="bye", loud=True)
if on then
  T.wait(function()
    for _, title in ipairs(actions()) do
      if title:find("Apply the agent's pattern here", 1, true) then
        return true
      end
    end
  end, 'the code action at line 4', 30000)
  out.titles = actions()
  -- As a user picks it: the built-in code action menu, the one action that fits, applied.
  vim.lsp.buf.code_action({
    apply = true,
    filter = function(action)
      return action.title:find("Apply the agent's pattern here", 1, true) ~= nil
    end,
  })
  T.wait(function()
    return T.lines(main)[4] == 'send(text="bye", loud=True)'
  end, 'the applied edit')
  T.wait(function()
    local listed = client:request_sync('agent/review/list', { sessionID = session }, 10000)
    out.review = {}
    for _, hunk in ipairs(listed and listed.result and listed.result.hunks or {}) do
      table.insert(out.review, hunk.file)
    end
    return #out.review == 2
  end, 'the applied edit in the review')
  out.applied = T.lines(main)
  vim.cmd('undo')
  out.undone = T.lines(main)
else
  vim.cmd('normal! x') -- the user types at the site too: still nothing is asked
  out.titles = actions()
end
T.finish()
vim.fn.writefile({ vim.json.encode(out) }, os.getenv('AGENTLS_TEST_OUT'))
