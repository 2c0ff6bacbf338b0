module example.com/renamemod

go 1.26
