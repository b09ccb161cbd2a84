# Sourced by the pages under docs/ (`. docs/try-it.sh`, in the checkout, with the server running):
# the variables of the README's "Try it" for the server `npm start` serves (on PORT, default
# 8080): U the base URL, B the collections, J the JSON content type, and A the authorization
# header of a token for admin on demo.main, from a new API key.
U=http://127.0.0.1:${PORT:-8080}/v4_server/external/v1
B=$U/maintenance
J='content-type: application/json'
KEY=$(node bin/mrs.js key create demo.main admin 2> /dev/null)
TOKEN=$(curl -s -X POST "$U/authenticate" -H "$J" -d "{\"api_key\": \"$KEY\", \"client_db\": \"demo.main\", \"username\": \"admin\"}" |
  node -pe 'JSON.parse(fs.readFileSync(0)).access_token')
A="authorization: Bearer $TOKEN"
