-- Attached to the agent host (setup{host = 'auto'}), the chat says who else shows its session and
-- where a dialog was answered. The test (test_watchers.py) attaches a second front end, "Visual
-- Studio Code", once this Neovim shows the session with a dialog open (WATCH_READY names the
-- session), shows the session there, answers the dialog, then detaches.
local T = dofile(os.getenv('AGENTLS_TEST_HELPERS'))
T.setup({ host = 'auto' })
local notes = T.notifications(function(msg)
  return msg:find('answered in', 1, true) ~= nil
end)
local shown = nil
vim.ui.select = function(_, _, on_choice) -- the dialog stays open: another front end answers it
  shown = on_choice
end

vim.cmd('Agentls')
local chat = T.chat()
T.send('edit calc.py')
T.wait(function()
  return chat.session_id and shown ~= nil
end, 'the edit dialog', 60000)
T.eq(nil, T.winbar():find('also open', 1, true), 'no one else shows it yet: ' .. T.winbar())
local ready = io.open(os.getenv('WATCH_READY') .. '.tmp', 'w')
ready:write(chat.session_id)
ready:close()
os.rename(os.getenv('WATCH_READY') .. '.tmp', os.getenv('WATCH_READY'))

T.wait(function()
  return T.winbar():find('also open in Visual Studio Code', 1, true)
end, 'the winbar to name the other front end', 60000)
io.stdout:write('WINBAR ' .. T.winbar() .. '\n')
T.wait(function()
  return #notes > 0
end, 'the notice of the answer given elsewhere', 60000)
T.idle(chat.session_id, 60000)
T.wait(function()
  return not T.winbar():find('also open', 1, true)
end, 'the winbar to drop the front end that left', 60000)
io.stdout:write('AFTER ' .. T.winbar() .. '\n')
io.stdout:write('NOTES ' .. vim.json.encode(notes) .. '\n')
io.stdout:write('DIALOG ' .. tostring(require('agentls.dialogs').active == nil) .. '\n')
T.finish()
