// Entry script of the playground.
import {initPlayground} from "../playground.js";
import {addShareButtons} from "../share-button.js";

initPlayground();
addShareButtons();
